import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type GoalSummary, type GoalSummaryPage, summarizeGoal } from '@novelrag/contracts';
import { ErrorDto, ListGoalsQueryDto } from '../goals/goal.dto';
import { GoalsService } from '../goals/goals.service';

/**
 * Goal summaries: one compact row per goal (status, agent, phase, steps, tokens, pending interaction, times) for lists
 * and tables, without steps, results or assessments. Same filters and cursor as `GET /v1/goals`.
 */
@ApiTags('goals')
@ApiBearerAuth()
@ApiResponse({ status: 400, type: ErrorDto, description: 'Invalid input (code VALIDATION_FAILED)' })
@ApiResponse({ status: 401, type: ErrorDto, description: 'Missing or invalid API key (UNAUTHORIZED)' })
@ApiResponse({ status: 429, type: ErrorDto, description: 'Rate limited (RATE_LIMITED)' })
@Controller('v1/goal-summaries')
export class GoalSummariesController {
  constructor(private readonly goals: GoalsService) {}

  @Get()
  @ApiOperation({ summary: 'List goal summaries, newest first (cursor pagination)' })
  async list(@Query() query: ListGoalsQueryDto): Promise<GoalSummaryPage> {
    const page = await this.goals.list(query);
    return { goals: page.goals.map(summarizeGoal), nextCursor: page.nextCursor };
  }

  @Get(':id')
  @ApiOperation({ summary: "One goal's summary" })
  @ApiResponse({ status: 404, type: ErrorDto, description: 'Unknown goal (NOT_FOUND)' })
  async get(@Param('id') id: string): Promise<GoalSummary> {
    return summarizeGoal(await this.goals.get(id));
  }
}
