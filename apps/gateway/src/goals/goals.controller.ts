import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  type GoalAccepted,
  type InteractionAnswerAck,
  InteractionAnswerBody,
  ListGoalsQuery,
  NextGoalBody,
  type NextGoalResult,
  SubmitGoalBody,
} from '@novelrag/contracts';
import { ApiError } from '../http/api-error';
import { ApiErrorResponse } from '../http/openapi';
import { GoalsService, type PublicGoal } from './goals.service';

interface AuthedRequest {
  principal?: string;
}
interface StatusResponse {
  status(code: number): unknown;
  setHeader(name: string, value: string): void;
}

const GOAL_ID = /^[A-Za-z0-9_-]{1,128}$/;
function goalId(id: string): string {
  if (!GOAL_ID.test(id))
    throw new ApiError('VALIDATION_FAILED', 'goal id must be 1-128 characters of A-Z a-z 0-9 _ -');
  return id;
}

@ApiTags('goals')
@ApiBearerAuth()
@ApiErrorResponse(400, 'Invalid input (code VALIDATION_FAILED)')
@ApiErrorResponse(401, 'Missing or invalid API key (UNAUTHORIZED)')
@ApiErrorResponse(429, 'Rate limited (RATE_LIMITED)')
@Controller('v1/goals')
export class GoalsController {
  constructor(private readonly goals: GoalsService) {}

  @Post()
  @ApiOperation({ summary: 'Submit a goal (durable once accepted)' })
  @ApiHeader({ name: 'idempotency-key', required: false, description: 'Same key (per API key) → same goal' })
  @ApiErrorResponse(409, 'Idempotency-Key reused with a different request (CONFLICT)')
  @ApiErrorResponse(413, 'Body too large (PAYLOAD_TOO_LARGE)')
  async submit(
    @Body({ schema: SubmitGoalBody }) body: SubmitGoalBody,
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: StatusResponse,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<GoalAccepted> {
    const { goal } = await this.goals.submit(body, req.principal ?? 'anonymous', idempotencyKey);
    res.status(202);
    res.setHeader('Location', `/v1/goals/${goal.goalId}`);
    return { goalId: goal.goalId, status: goal.status };
  }

  @Post('next')
  @ApiOperation({
    summary: 'Autonomous mode: the backlog and exploration deciders choose the next goal, which is queued',
  })
  @ApiErrorResponse(503, 'No orchestrator answers (NO_RESPONDERS) or none has a model (UNAVAILABLE)')
  async next(
    @Body({ schema: NextGoalBody }) body: NextGoalBody,
    @Res({ passthrough: true }) res: StatusResponse,
  ): Promise<NextGoalResult> {
    const { goal } = await this.goals.next(body);
    if (goal === null) {
      res.status(200);
      return { goal: null };
    }
    res.status(202);
    if (goal.goalId) res.setHeader('Location', `/v1/goals/${goal.goalId}`);
    return {
      goal,
      ...(goal.goalId ? { goalId: goal.goalId } : {}),
      ...(goal.status ? { status: goal.status } : {}),
    };
  }

  @Get()
  @ApiOperation({ summary: 'List goals, newest first (cursor pagination)' })
  list(
    @Query({ schema: ListGoalsQuery }) query: ListGoalsQuery,
  ): Promise<{ goals: PublicGoal[]; nextCursor: string | null }> {
    return this.goals.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one goal (status, steps, pending interaction, outcome)' })
  @ApiErrorResponse(404, 'Unknown goal (NOT_FOUND)')
  get(@Param('id') id: string): Promise<PublicGoal> {
    return this.goals.get(goalId(id));
  }

  @Post(':id/cancel')
  @HttpCode(202)
  @ApiOperation({ summary: 'Cancel a goal (stops at the next safe point)' })
  @ApiErrorResponse(404, 'Unknown goal (NOT_FOUND)')
  @ApiErrorResponse(409, 'The goal already ended (CONFLICT)')
  cancel(@Param('id') id: string, @Req() req: AuthedRequest): Promise<PublicGoal> {
    return this.goals.cancel(goalId(id), req.principal ?? 'anonymous');
  }

  @Post(':id/interactions/:iid')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer the pending confirmation ({approved}) or request ({text}) of a goal',
    description:
      'The answer is stored with the question first. 200: the orchestrator holding the goal took it. 202 ' +
      '(`deferred`): no orchestrator holds the goal right now (crash, takeover); the answer is applied when the ' +
      'goal resumes and its tool asks the same question again.',
  })
  @ApiResponse({ status: 202, description: 'Stored; applied when the goal resumes' })
  @ApiErrorResponse(
    409,
    'Not waiting for this interaction, or it was answered otherwise (INTERACTION_NOT_PENDING)',
  )
  async answer(
    @Param('id') id: string,
    @Param('iid') iid: string,
    @Body({ schema: InteractionAnswerBody }) body: InteractionAnswerBody,
    @Req() req: AuthedRequest,
    @Res({ passthrough: true }) res: StatusResponse,
  ): Promise<InteractionAnswerAck> {
    const ack = await this.goals.answer(goalId(id), iid, body, req.principal ?? 'anonymous');
    if (ack.deferred) res.status(202);
    return ack;
  }
}
