import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { EndpointExtras } from '@novelrag/bus';
import { type NextGoalReply, Subjects } from '@novelrag/contracts';
import { Orchestrator } from '../runtime/orchestrator';

/** `novelrag.autonomous.next` (any one instance answers): the autonomous deciders' next goal. */
@Controller()
export class NextGoalController {
  constructor(@Inject(Orchestrator) private readonly orchestrator: Orchestrator) {}

  @MessagePattern(Subjects.autonomousNext, { endpoint: 'autonomous-next' } satisfies EndpointExtras)
  next(@Payload() payload: unknown): Promise<NextGoalReply> {
    return this.orchestrator.nextGoal.next(payload);
  }
}
