import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AspectsListReply,
  BacklogAddBody,
  BacklogEntry,
  type BacklogAddReply,
  type BacklogListReply,
  type BacklogRemoveReply,
  FindRequest,
  type FindReply,
  LimitQuery,
  type OperationsListReply,
  SearchRequest,
  type SearchReply,
  type UndoRedoReply,
} from '@novelrag/contracts';
import type { ResourceService } from '@novelrag/resource-client';
import { ApiError } from '../http/api-error';
import { ApiErrorResponse } from '../http/openapi';
import { RESOURCE_SERVICE } from './resource-service.provider';

/** The knowledge repository over REST: a thin, validated proxy to the ResourceService (the resource-service). */
@ApiTags('resources')
@ApiBearerAuth()
@Controller('v1')
export class ResourcesController {
  constructor(@Inject(RESOURCE_SERVICE) private readonly resources: ResourceService) {}

  @Get('resources')
  @ApiOperation({
    summary: 'Get a resource by URI (`/` lists aspects, `/{aspect}` an aspect, deeper an element)',
  })
  get(@Query({ schema: FindRequest }) { uri }: FindRequest): Promise<FindReply> {
    return this.resources.find({ uri });
  }

  @Post('resources/search')
  @HttpCode(200)
  @ApiOperation({ summary: 'Hybrid search (keyword + vector); exact names rank first' })
  search(@Body({ schema: SearchRequest }) body: SearchRequest): Promise<SearchReply> {
    return this.resources.search(body);
  }

  @Get('aspects')
  @ApiOperation({ summary: 'List aspects' })
  aspects(): Promise<AspectsListReply> {
    return this.resources.aspectsList({});
  }

  @Get('operations')
  @ApiOperation({ summary: 'Recent undo/redo history, newest first' })
  operations(@Query({ schema: LimitQuery }) { limit }: LimitQuery): Promise<OperationsListReply> {
    return this.resources.operations(limit ? { limit } : {});
  }

  @Post('undo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo the newest group of changes' })
  undo(): Promise<UndoRedoReply> {
    return this.resources.undo({});
  }

  @Post('redo')
  @HttpCode(200)
  @ApiOperation({ summary: 'Redo the newest undone group' })
  redo(): Promise<UndoRedoReply> {
    return this.resources.redo({});
  }

  @Get('backlog')
  @ApiOperation({ summary: 'Backlog entries, highest priority first' })
  backlog(@Query({ schema: LimitQuery }) { limit }: LimitQuery): Promise<BacklogListReply> {
    return this.resources.backlogList(limit ? { limit } : {});
  }

  @Post('backlog')
  @ApiOperation({ summary: 'Add a backlog entry (identical content merges, keeping the higher priority)' })
  addBacklog(@Body({ schema: BacklogAddBody }) body: BacklogAddBody): Promise<BacklogAddReply> {
    return this.resources.backlogAdd(body);
  }

  @Delete('backlog/:id')
  @ApiOperation({ summary: 'Remove a backlog entry' })
  @ApiErrorResponse(400, 'The id is not a backlog entry id (VALIDATION_FAILED)')
  async removeBacklog(@Param('id') id: string): Promise<BacklogRemoveReply> {
    // Checked here, like a goal id, so a malformed id is a 400 of the gateway's and never reaches the bus.
    if (!BacklogEntry.shape.id.safeParse(id).success)
      throw new ApiError('VALIDATION_FAILED', 'backlog entry id must be 1-128 characters of A-Z a-z 0-9 _ -');
    const reply = await this.resources.backlogRemove({ ids: [id] });
    if (reply.removed.length === 0) throw new ApiError('NOT_FOUND', `backlog entry ${id} does not exist`);
    return reply;
  }
}
