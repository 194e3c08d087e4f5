// For the demo script and tests: the CLI as functions.
export { runCli } from './cli';
export { processIo, type CliIo } from './io';
export { GatewayClient } from './gateway-client';
export { followGoal, type FollowOptions } from './follow';
export { phaseOf, renderTraceEvent, renderOutcome } from './render/trace';
export { renderFind, renderSearch } from './render/records';
export { CliError, CLI_EXIT } from './errors';
export { GoalAccepted, PublicGoal } from './responses';
