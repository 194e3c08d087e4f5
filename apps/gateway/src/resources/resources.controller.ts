import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/transport-node';
import { NATS_CONNECTION, busRequest } from '@novelrag/bus';
import {
  AspectsListReply,
  BacklogAddReply,
  BacklogListReply,
  BacklogRemoveReply,
  FindReply,
  OperationsListReply,
  SearchReply,
  Subjects,
  UndoRedoReply,
} from '@novelrag/contracts';
import type { z } from 'zod';
import { ApiError } from '../http/api-error';
import { BacklogAddDto, LimitQueryDto, ResourceUriQueryDto, SearchResourcesDto } from './resources.dto';

const S = Subjects.resources;
const TIMEOUT_MS = 15_000;

/** The knowledge repository over REST: a thin, validated proxy to the resource-service's NATS API. */
@ApiTags('resources')
@ApiBearerAuth()
@Controller('v1')
export class ResourcesController {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  private call<T>(subject: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    return busRequest(this.nc, subject, body, schema, { timeoutMs: TIMEOUT_MS });
  }

  @Get('resources')
  @ApiOperation({
    summary: 'Get a resource by URI (`/` lists aspects, `/{aspect}` an aspect, deeper an element)',
  })
  get(@Query() { uri }: ResourceUriQueryDto): Promise<FindReply> {
    return this.call(S.find, { uri }, FindReply);
  }

  @Post('resources/search')
  @HttpCode(200)
  @ApiOperation({ summary: 'Hybrid search (keyword + vector); exact names rank first' })
  search(@Body() body: SearchResourcesDto): Promise<SearchReply> {
    return this.call(S.search, body, SearchReply);
  }

  @Get('aspects')
  @ApiOperation({ summary: 'List aspects' })
  aspects(): Promise<AspectsListReply> {
    return this.call(S.aspectsList, {}, AspectsListReply);
  }

  @Get('operations')
  @ApiOperation({ summary: 'Recent undo/redo history, newest first' })
  operations(@Query() { limit }: LimitQueryDto): Promise<OperationsListReply> {
    return this.call(S.operations, limit ? { limit } : {}, OperationsListReply);
  }

  @Post('undo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo the newest group of changes' })
  undo(): Promise<UndoRedoReply> {
    return this.call(S.undo, {}, UndoRedoReply);
  }

  @Post('redo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Redo the newest undone group' })
  redo(): Promise<UndoRedoReply> {
    return this.call(S.redo, {}, UndoRedoReply);
  }

  @Get('backlog')
  @ApiOperation({ summary: 'Backlog entries, highest priority first' })
  backlog(@Query() { limit }: LimitQueryDto): Promise<BacklogListReply> {
    return this.call(S.backlogList, limit ? { limit } : {}, BacklogListReply);
  }

  @Post('backlog')
  @ApiOperation({ summary: 'Add a backlog entry (identical content merges, keeping the higher priority)' })
  addBacklog(@Body() body: BacklogAddDto): Promise<BacklogAddReply> {
    return this.call(S.backlogAdd, body, BacklogAddReply);
  }

  @Delete('backlog/:id')
  @ApiOperation({ summary: 'Remove a backlog entry' })
  async removeBacklog(@Param('id') id: string): Promise<BacklogRemoveReply> {
    const reply = await this.call(S.backlogRemove, { ids: [id] }, BacklogRemoveReply);
    if (reply.removed.length === 0) throw new ApiError('NOT_FOUND', `backlog entry ${id} does not exist`);
    return reply;
  }
}
