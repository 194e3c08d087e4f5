import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AspectCreateRequest,
  AspectRemoveRequest,
  AspectsListRequest,
  ApplyReply,
  ApplyRequest,
  BacklogAddRequest,
  BacklogListRequest,
  BacklogRemoveRequest,
  DEFAULT_SEARCH_LIMIT,
  ExportRequest,
  FindRequest,
  ImportRequest,
  OperationsListRequest,
  RelationshipsUpdate,
  SCHEMA_VERSION,
  SearchRequest,
  SegmentsRequest,
  Subjects,
  UndoRedoRequest,
  type AspectCreateReply,
  type AspectRemoveReply,
  type AspectsListReply,
  type BacklogAddReply,
  type BacklogListReply,
  type BacklogRemoveReply,
  type ExportReply,
  type FindReply,
  type ImportReply,
  type OperationsListReply,
  type RelationshipsReply,
  type SearchReply,
  type SegmentsReply,
  type UndoRedoReply,
} from '@novelrag/contracts';
import { type ExecuteOutcome, ResourceError, type ResourceRepository } from '@novelrag/repository';
import { BacklogCodec, exportAspects, importActions } from './resources.helpers';
import { RESOURCE_REPOSITORY } from './tokens';
import { elementContext, resourceElement, toAction, toWireOperation, wireAspect, wireSegment } from './wire';

const S = Subjects.resources;

/**
 * The resource service's NATS API (`novelrag.resources.*`). Every payload is parsed with its contract; domain errors
 * (ResourceError codes) travel as coded envelopes through the bus transport.
 */
@Controller()
export class ResourcesController {
  constructor(@Inject(RESOURCE_REPOSITORY) private readonly repo: ResourceRepository) {}

  private readonly childrenKeysOf = (aspect: string): readonly string[] => {
    const found = this.repo.find(`/${aspect}`);
    return found?.kind === 'aspect' ? found.aspect.childrenKeys : [];
  };

  @MessagePattern(S.find)
  find(@Payload() body: unknown): Promise<FindReply> {
    const { uri } = FindRequest.parse(body);
    return this.repo.committed(() => this.findReply(uri));
  }

  private findReply(uri: string): FindReply {
    const found = this.repo.find(uri);
    if (!found) throw new ResourceError('NOT_FOUND', `${uri} does not exist`, { uri });
    switch (found.kind) {
      case 'root':
        return { kind: 'root', uri: '/', aspects: found.aspects.map(wireAspect) };
      case 'aspect':
        return { kind: 'aspect', uri, aspect: wireAspect(found.aspect), rootIds: found.rootIds };
      case 'element': {
        const lookup = (u: string) => {
          const f = this.repo.find(u);
          return f?.kind === 'element' ? f.record : undefined;
        };
        return { kind: 'element', uri, element: resourceElement(found.record, lookup) };
      }
    }
  }

  @MessagePattern(S.search)
  async search(@Payload() body: unknown): Promise<SearchReply> {
    const { query, aspect, limit } = SearchRequest.parse(body);
    const results = await this.repo.search(query, {
      limit: limit ?? DEFAULT_SEARCH_LIMIT,
      ...(aspect ? { aspect } : {}),
    });
    return this.repo.committed(() => {
      const hits: SearchReply['hits'] = [];
      for (const { uri, score } of results) {
        const found = this.repo.find(uri);
        if (found?.kind === 'element') hits.push({ uri, score, element: elementContext(found.record) });
      }
      return { hits };
    });
  }

  @MessagePattern(S.segments)
  async segments(@Payload() body: unknown): Promise<SegmentsReply> {
    const request = SegmentsRequest.parse(body);
    const result = await this.repo.segments(request);
    return { segments: result.segments.map(wireSegment), missing: result.missing };
  }

  @MessagePattern(S.apply)
  async apply(@Payload() body: unknown): Promise<ApplyReply> {
    const { operations, groupId, idempotencyKey } = ApplyRequest.parse(body);
    const actions = operations.map(toAction);
    const options = groupId ? { group: groupId } : {};
    if (!idempotencyKey) return this.applyReply(await this.repo.execute(actions, options));
    // The repository records the key with the reply in the write's own durable history, so a retry is answered
    // from it even after a restart (see ResourceRepository.executeOnce, also for retries after an undo).
    // The operations are remembered with the reply: a retry may send different ones (regenerated content), and its
    // caller must report what was applied, not what it just sent.
    const result = await this.repo.executeOnce(
      actions,
      { key: idempotencyKey, reply: (outcome) => ({ ...this.applyReply(outcome), applied: operations }) },
      options,
    );
    if (result.replayed) return ApplyReply.parse({ ...(result.reply as object), replayed: true });
    const { undo, changedUris } = result.reply;
    return { undo, changedUris };
  }

  private applyReply(outcome: ExecuteOutcome): ApplyReply {
    return {
      undo: [...outcome.inverses].reverse().map((inverse) => toWireOperation(inverse, this.childrenKeysOf)),
      changedUris: outcome.uris,
    };
  }

  @MessagePattern(S.relationships)
  async relationships(@Payload() body: unknown): Promise<RelationshipsReply> {
    const { source, target, relations, groupId } = RelationshipsUpdate.parse(body);
    const previous = await this.repo.updateRelationships(
      source,
      target,
      relations,
      groupId ? { group: groupId } : {},
    );
    return { previous };
  }

  @MessagePattern(S.aspectsList)
  aspects(@Payload() body: unknown): Promise<AspectsListReply> {
    AspectsListRequest.parse(body);
    return this.repo.committed(() => {
      const found = this.repo.find('/');
      return { aspects: found?.kind === 'root' ? found.aspects.map(wireAspect) : [] };
    });
  }

  @MessagePattern(S.aspectsCreate)
  async createAspect(@Payload() body: unknown): Promise<AspectCreateReply> {
    const { name, description, childrenKeys, metadata } = AspectCreateRequest.parse(body);
    const aspect = await this.repo.addAspect(name, {
      ...metadata,
      ...(description != null ? { description } : {}),
      children_keys: childrenKeys,
    });
    return { aspect: wireAspect(aspect) };
  }

  @MessagePattern(S.aspectsRemove)
  async removeAspect(@Payload() body: unknown): Promise<AspectRemoveReply> {
    const { name } = AspectRemoveRequest.parse(body);
    const removed = await this.repo.removeAspect(name);
    return { aspect: wireAspect(removed.aspect), removedElements: removed.elementCount };
  }

  @MessagePattern(S.undo)
  undo(@Payload() body: unknown): Promise<UndoRedoReply> {
    UndoRedoRequest.parse(body);
    return this.replay('undo');
  }

  @MessagePattern(S.redo)
  redo(@Payload() body: unknown): Promise<UndoRedoReply> {
    UndoRedoRequest.parse(body);
    return this.replay('redo');
  }

  private async replay(which: 'undo' | 'redo'): Promise<UndoRedoReply> {
    const outcome = which === 'undo' ? await this.repo.undo() : await this.repo.redo();
    if (!outcome.performed) return { status: 'empty', action: which };
    return {
      status: 'applied',
      action: which,
      count: outcome.count,
      descriptions: outcome.descriptions,
      changedUris: outcome.uris,
    };
  }

  @MessagePattern(S.operations)
  operations(@Payload() body: unknown): Promise<OperationsListReply> {
    const { limit = 10 } = OperationsListRequest.parse(body);
    return this.repo.committed(() => {
      const entries = (['undo', 'redo'] as const).flatMap((stack) =>
        this.repo.recentActions(limit, stack).map((entry) => ({
          stack,
          description: entry.description,
          group: entry.group,
          operation: toWireOperation(entry.action, this.childrenKeysOf),
          at: entry.at,
        })),
      );
      return { entries };
    });
  }

  @MessagePattern(S.backlogAdd)
  async backlogAdd(@Payload() body: unknown): Promise<BacklogAddReply> {
    const { content, priority } = BacklogAddRequest.parse(body);
    return { entry: BacklogCodec.toWire(await this.repo.addBacklog(BacklogCodec.encode(content), priority)) };
  }

  @MessagePattern(S.backlogList)
  backlogList(@Payload() body: unknown): Promise<BacklogListReply> {
    const { limit } = BacklogListRequest.parse(body);
    return this.repo.committed(() => {
      const entries = this.repo.listBacklog().map(BacklogCodec.toWire);
      return { entries: limit ? entries.slice(0, limit) : entries };
    });
  }

  @MessagePattern(S.backlogRemove)
  async backlogRemove(@Payload() body: unknown): Promise<BacklogRemoveReply> {
    const { ids } = BacklogRemoveRequest.parse(body);
    const existing = this.repo.listBacklog().filter((entry) => ids.includes(entry.id));
    for (const entry of existing) await this.repo.removeBacklog(entry.id);
    return { removed: existing.map(BacklogCodec.toWire) };
  }

  @MessagePattern(S.import)
  async import(@Payload() body: unknown): Promise<ImportReply> {
    const request = ImportRequest.parse(body);
    const { actions, elements } = importActions(request, (name) => this.repo.find(`/${name}`) !== null);
    await this.repo.execute(actions, { group: `import-${Date.now().toString(36)}` });
    return { aspects: request.aspects.length, elements };
  }

  @MessagePattern(S.export)
  export(@Payload() body: unknown): ExportReply {
    const { aspects } = ExportRequest.parse(body);
    return { schemaVersion: SCHEMA_VERSION, aspects: exportAspects(this.repo, aspects) };
  }
}
