import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects } from '@novelrag/contracts';
import { type FindResult, type ResourceRepository, aspectView, contextView } from '../domain';
import {
  ApplyRequest,
  AspectCreateRequest,
  AspectRemoveRequest,
  BacklogAddRequest,
  BacklogListRequest,
  BacklogRemoveRequest,
  EmptyRequest,
  FindRequest,
  OperationsRequest,
  RelationshipsRequest,
  SearchRequest,
  SegmentsRequest,
} from './api';
import { NovelragProject, exportProject, importProject } from './novelrag-format';
import { RESOURCE_REPOSITORY } from './tokens';

const S = Subjects.resources;

/** The resource service's NATS API: every payload parsed at the boundary; domain errors travel as coded envelopes. */
@Controller()
export class ResourcesController {
  constructor(@Inject(RESOURCE_REPOSITORY) private readonly repo: ResourceRepository) {}

  @MessagePattern(S.find)
  find(@Payload() body: unknown) {
    const { uri } = FindRequest.parse(body);
    return { uri, found: this.view(this.repo.find(uri)) };
  }

  @MessagePattern(S.search)
  async search(@Payload() body: unknown) {
    const { query, aspect, limit } = SearchRequest.parse(body);
    return { hits: await this.repo.search(query, { limit, ...(aspect ? { aspect } : {}) }) };
  }

  @MessagePattern(S.segments)
  segments(@Payload() body: unknown) {
    return this.repo.segments(SegmentsRequest.parse(body));
  }

  @MessagePattern(S.apply)
  apply(@Payload() body: unknown) {
    const { operations, group } = ApplyRequest.parse(body);
    return this.repo.apply(operations, group ? { group } : {});
  }

  @MessagePattern(S.relationships)
  async relationships(@Payload() body: unknown) {
    const { source, target, relationships, group } = RelationshipsRequest.parse(body);
    const old = await this.repo.updateRelationships(source, target, relationships, group ? { group } : {});
    return { source, target, old, relationships };
  }

  @MessagePattern(S.aspectsList)
  aspects(@Payload() body: unknown) {
    EmptyRequest.parse(body);
    const found = this.repo.find('/');
    return { aspects: found?.kind === 'root' ? found.aspects.map((a) => aspectView(a)) : [] };
  }

  @MessagePattern(S.aspectsCreate)
  async createAspect(@Payload() body: unknown) {
    const { name, config, group } = AspectCreateRequest.parse(body);
    return { aspect: aspectView(await this.repo.addAspect(name, config as never, group ? { group } : {})) };
  }

  @MessagePattern(S.aspectsRemove)
  async removeAspect(@Payload() body: unknown) {
    const { name, group } = AspectRemoveRequest.parse(body);
    const removed = await this.repo.removeAspect(name, group ? { group } : {});
    return { aspect: aspectView(removed.aspect), elementCount: removed.elementCount };
  }

  @MessagePattern(S.undo)
  undo(@Payload() body: unknown) {
    EmptyRequest.parse(body);
    return this.repo.undo();
  }

  @MessagePattern(S.redo)
  redo(@Payload() body: unknown) {
    EmptyRequest.parse(body);
    return this.repo.redo();
  }

  @MessagePattern(S.operations)
  operations(@Payload() body: unknown) {
    const { limit, stack } = OperationsRequest.parse(body);
    return { stack, entries: this.repo.recentActions(limit, stack) };
  }

  @MessagePattern(S.backlogAdd)
  async backlogAdd(@Payload() body: unknown) {
    const { content, priority } = BacklogAddRequest.parse(body);
    return { entry: await this.repo.addBacklog(content, priority) };
  }

  @MessagePattern(S.backlogList)
  backlogList(@Payload() body: unknown) {
    const { limit } = BacklogListRequest.parse(body);
    const entries = this.repo.listBacklog();
    return { entries: limit ? entries.slice(0, limit) : entries };
  }

  @MessagePattern(S.backlogRemove)
  async backlogRemove(@Payload() body: unknown) {
    const { id } = BacklogRemoveRequest.parse(body);
    return { removed: await this.repo.removeBacklog(id) };
  }

  @MessagePattern(S.import)
  import(@Payload() body: unknown) {
    return importProject(this.repo, NovelragProject.parse(body));
  }

  @MessagePattern(S.export)
  export(@Payload() body: unknown) {
    EmptyRequest.parse(body);
    return exportProject(this.repo);
  }

  private view(found: FindResult | null) {
    if (!found) return null;
    switch (found.kind) {
      case 'root':
        return { kind: 'root' as const, aspects: found.aspects.map((a) => aspectView(a)) };
      case 'aspect':
        return { kind: 'aspect' as const, aspect: aspectView(found.aspect), rootIds: found.rootIds };
      case 'element':
        return { kind: 'element' as const, element: contextView(found.record) };
    }
  }
}
