import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { AgentKind } from '@novelrag/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';

const ID = /^[A-Za-z0-9_-]{1,128}$/;
const LANG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

export class GoalLimitsDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, example: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxSteps?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 50, description: 'Context discovery rounds per step' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  maxIterations?: number;

  @ApiPropertyOptional({ minimum: 1000, maximum: 86_400_000, example: 600_000 })
  @IsOptional()
  @IsInt()
  @Min(1000)
  @Max(86_400_000)
  wallClockMs?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 100_000_000, example: 200_000 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  tokenBudget?: number;
}

/** `POST /v1/goals`: exactly one of `request` (translated into a goal) and `goal`. */
export class SubmitGoalDto {
  @ApiPropertyOptional({
    example: 'Create a protagonist named 余归 and link her to the Azure Sect',
    maxLength: 20_000,
  })
  @IsOptional()
  @IsString()
  @Length(1, 20_000)
  request?: string;

  @ApiPropertyOptional({ description: 'A goal statement used as is (no translation)', maxLength: 20_000 })
  @IsOptional()
  @IsString()
  @Length(1, 20_000)
  goal?: string;

  @ApiPropertyOptional({
    description: 'Goals of one thread share history and workspace and run one after another',
    example: 'novel-1',
  })
  @IsOptional()
  @Matches(ID, { message: 'threadId must be 1-128 characters of A-Z a-z 0-9 _ -' })
  threadId?: string;

  @ApiPropertyOptional({ example: 'zh' })
  @IsOptional()
  @Matches(LANG, { message: 'lang must be a BCP-47 tag such as en, zh or zh-Hans' })
  lang?: string;

  @ApiPropertyOptional({ type: [String], example: ['The novel is a xianxia story written in Chinese'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 2000, { each: true })
  beliefs?: string[];

  @ApiPropertyOptional({ type: GoalLimitsDto })
  @IsOptional()
  @IsObject() // an array would pass ValidateNested element by element
  @ValidateNested()
  @Type(() => GoalLimitsDto)
  limits?: GoalLimitsDto;

  @ApiPropertyOptional({
    enum: AgentKind.options,
    default: 'novelrag',
    description:
      'The kind of agent that pursues the goal (novelrag: the four-phase action-determine loop; assistant: plans, runs independent tools in parallel and answers with suggested next inputs)',
  })
  @IsOptional()
  @IsIn(AgentKind.options, { message: `agent must be one of: ${AgentKind.options.join(', ')}` })
  agent?: AgentKind;
}

export class ListGoalsQueryDto {
  @ApiPropertyOptional({
    enum: ['queued', 'running', 'waiting_for_input', 'completed', 'failed', 'abandoned', 'cancelled'],
  })
  @IsOptional()
  @IsIn(['queued', 'running', 'waiting_for_input', 'completed', 'failed', 'abandoned', 'cancelled'])
  status?: 'queued' | 'running' | 'waiting_for_input' | 'completed' | 'failed' | 'abandoned' | 'cancelled';

  @ApiPropertyOptional()
  @IsOptional()
  @Matches(ID, { message: 'threadId must be 1-128 characters of A-Z a-z 0-9 _ -' })
  threadId?: string;

  @ApiPropertyOptional({
    enum: AgentKind.options,
    description: 'Only goals of this agent kind (goals submitted without one are `novelrag`)',
  })
  @IsOptional()
  @IsIn(AgentKind.options, { message: `agent must be one of: ${AgentKind.options.join(', ')}` })
  agent?: AgentKind;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @Length(1, 512)
  cursor?: string;
}

export class GoalAcceptedDto {
  @ApiProperty({ example: 'g-3f9c2a7d41b84e0f9a2c' }) goalId!: string;
  @ApiProperty({ example: 'queued' }) status!: string;
}

export class ErrorDto {
  @ApiProperty({ example: 'VALIDATION_FAILED' }) code!: string;
  @ApiProperty({ example: 'request must be longer than or equal to 1 characters' }) message!: string;
  @ApiPropertyOptional({ type: Object }) details?: Record<string, unknown>;
}

/** `POST /v1/goals/next`: what the autonomous goal is for; the deciders choose the goal itself. */
export class NextGoalDto extends OmitType(SubmitGoalDto, ['request', 'goal'] as const) {}

export class GoalDeciderDto {
  @ApiProperty({ example: 'backlog' }) name!: string;
  @ApiPropertyOptional({ example: 'Based on backlog entries: (priority=8) 余归 needs a rival' })
  context?: string;
}

export class NextGoalChosenDto {
  @ApiProperty({ example: 'Create a rival for /character/余归 in the Azure Sect' }) description!: string;
  @ApiProperty({ type: GoalDeciderDto }) decider!: GoalDeciderDto;
  @ApiPropertyOptional({ example: 'g-3f9c2a7d41b84e0f9a2c' }) goalId?: string;
  @ApiPropertyOptional({ example: 'g-3f9c2a7d41b84e0f9a2c' }) threadId?: string;
  @ApiPropertyOptional({ example: 'queued' }) status?: string;
}

export class NextGoalResultDto {
  @ApiProperty({
    type: NextGoalChosenDto,
    nullable: true,
    description: 'The queued goal, or null when there is nothing worth doing',
  })
  goal!: NextGoalChosenDto | null;
  @ApiPropertyOptional({ example: 'g-3f9c2a7d41b84e0f9a2c' }) goalId?: string;
  @ApiPropertyOptional({ example: 'queued' }) status?: string;
}
