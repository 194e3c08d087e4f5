import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type GoalSummary, type GoalSummaryPage, ListGoalsQuery, summarizeGoal } from '@novelrag/contracts';
import { ApiErrorResponse } from '../http/openapi';
import { GoalsService } from '../goals/goals.service';

/**
 * Goal summaries: one compact row per goal (status, agent, phase, steps, tokens, pending interaction, times) for lists
 * and tables, without steps, results or assessments. Same filters and cursor as `GET /v1/goals`.
 */
@ApiTags('goals')
@ApiBearerAuth()
@ApiErrorResponse(400, 'Invalid input (code VALIDATION_FAILED)')
@ApiErrorResponse(401, 'Missing or invalid API key (UNAUTHORIZED)')
@ApiErrorResponse(429, 'Rate limited (RATE_LIMITED)')
@Controller('v1/goal-summaries')
export class GoalSummariesController {
  constructor(private readonly goals: GoalsService) {}

  @Get()
  @ApiOperation({ summary: 'List goal summaries, newest first (cursor pagination)' })
  async list(@Query({ schema: ListGoalsQuery }) query: ListGoalsQuery): Promise<GoalSummaryPage> {
    const page = await this.goals.list(query);
    return { goals: page.goals.map(summarizeGoal), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({ summary: "One goal's summary" })
  @ApiErrorResponse(404, 'Unknown goal (NOT_FOUND)')
  async get(@Param('id') id: string): Promise<GoalSummary> {
    return summarizeGoal(await this.goals.get(id));
  }
}
