// The durable pursuit of a goal: pickup (lease, record, resume), the pursuit's stop, translation, checkpoints,
// interactions, trace and the recorded end. Agent kinds (../agents) do the pursuing in between.
export { giveUpGoal, pursueGoal, settleFinished } from './pickup';
export { deliveryOf, handsBack, PursuitStop, PursuitStopped } from './stop';
export type { PursuitEnd, PursuitResult, StopReason } from './stop';
export type { Delivery, PursuitDeps, PursuitSettings } from './types';
export { ResourceBacklog } from './execution-context';
export type { BacklogSink } from './execution-context';
