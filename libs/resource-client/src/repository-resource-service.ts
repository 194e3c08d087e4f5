import { raceAbort } from '@novelrag/bus';
import {
  ApplyReply,
  DEFAULT_SEARCH_LIMIT,
  SCHEMA_VERSION,
  type FindReply,
  type SearchReply,
  type UndoRedoReply,
} from '@novelrag/contracts';
import { type ExecuteOutcome, ResourceError, type ResourceRepository } from '@novelrag/repository';
import { type ReplyOf, type RequestOf, parseRequest } from './calls';
import { asBusError, cancelled } from './errors';
import type { ResourceMethod, ResourceService } from './resource-service.port';
import { elementContext, resourceElement, toAction, toWireOperation, wireAspect, wireSegment } from './wire';
import { BacklogCodec, exportAspects, importActions } from './wire-helpers';

/**
 * The ResourceService over a ResourceRepository in this process: what the resource-service serves on the bus (its
 * controller delegates here) and, on the in-memory store, the in-process twin other projects test with. Every request
 * is parsed with its contract; failures are the BusErrors a bus caller would get (see `asBusError`). An aborted
 * `signal` rejects with CANCELLED (a write already started may still complete, as over the bus).
 */
export class RepositoryResourceService implements ResourceService {
  constructor(readonly repository: ResourceRepository) {}

  private readonly childrenKeysOf = (aspect: string): readonly string[] => {
    const found = this.repository.find(`/${aspect}`);
    return found?.kind === 'aspect' ? found.aspect.childrenKeys : [];
  };

  find(request: RequestOf<'find'>, signal?: AbortSignal) {
    return this.run('find', request, signal, ({ uri }) =>
      this.repository.committed(() => this.findReply(uri)),
    );
  }

  search(request: RequestOf<'search'>, signal?: AbortSignal) {
    return this.run('search', request, signal, async ({ query, aspect, limit }) => {
      const results = await this.repository.search(query, {
        limit: limit ?? DEFAULT_SEARCH_LIMIT,
        ...(aspect ? { aspect } : {}),
      });
      return this.repository.committed(() => {
        const hits: SearchReply['hits'] = [];
        for (const { uri, score } of results) {
          const found = this.repository.find(uri);
          if (found?.kind === 'element') hits.push({ uri, score, element: elementContext(found.record) });
        }
        return { hits };
      });
    });
  }

  segments(request: RequestOf<'segments'>, signal?: AbortSignal) {
    return this.run('segments', request, signal, async (parsed) => {
      const result = await this.repository.segments(parsed);
      return { segments: result.segments.map(wireSegment), missing: result.missing };
    });
  }

  apply(request: RequestOf<'apply'>, signal?: AbortSignal) {
    return this.run('apply', request, signal, async ({ operations, groupId, idempotencyKey }) => {
      const actions = operations.map(toAction);
      const options = groupId ? { group: groupId } : {};
      if (!idempotencyKey) return this.applyReply(await this.repository.execute(actions, options));
      // The repository records the key with the reply in the write's own durable history, so a retry is answered
      // from it even after a restart (see ResourceRepository.executeOnce, also for retries after an undo).
      // The operations are remembered with the reply: a retry may send different ones (regenerated content), and its
      // caller must report what was applied, not what it just sent.
      const result = await this.repository.executeOnce(
        actions,
        { key: idempotencyKey, reply: (outcome) => ({ ...this.applyReply(outcome), applied: operations }) },
        options,
      );
      if (result.replayed) return ApplyReply.parse({ ...(result.reply as object), replayed: true });
      const { undo, changedUris } = result.reply;
      return { undo, changedUris };
    });
  }

  relationships(request: RequestOf<'relationships'>, signal?: AbortSignal) {
    return this.run('relationships', request, signal, async ({ source, target, relations, groupId }) => {
      const options = groupId ? { group: groupId } : {};
      return { previous: await this.repository.updateRelationships(source, target, relations, options) };
    });
  }

  aspectsList(request: RequestOf<'aspectsList'> = {}, signal?: AbortSignal) {
    return this.run('aspectsList', request, signal, () =>
      this.repository.committed(() => {
        const found = this.repository.find('/');
        return { aspects: found?.kind === 'root' ? found.aspects.map(wireAspect) : [] };
      }),
    );
  }

  aspectsCreate(request: RequestOf<'aspectsCreate'>, signal?: AbortSignal) {
    return this.run(
      'aspectsCreate',
      request,
      signal,
      async ({ name, description, childrenKeys, metadata }) => {
        const aspect = await this.repository.addAspect(name, {
          ...metadata,
          ...(description != null ? { description } : {}),
          children_keys: childrenKeys,
        });
        return { aspect: wireAspect(aspect) };
      },
    );
  }

  aspectsRemove(request: RequestOf<'aspectsRemove'>, signal?: AbortSignal) {
    return this.run('aspectsRemove', request, signal, async ({ name }) => {
      const removed = await this.repository.removeAspect(name);
      return { aspect: wireAspect(removed.aspect), removedElements: removed.elementCount };
    });
  }

  undo(request: RequestOf<'undo'> = {}, signal?: AbortSignal) {
    return this.run('undo', request, signal, () => this.replay('undo'));
  }

  redo(request: RequestOf<'redo'> = {}, signal?: AbortSignal) {
    return this.run('redo', request, signal, () => this.replay('redo'));
  }

  operations(request: RequestOf<'operations'> = {}, signal?: AbortSignal) {
    return this.run('operations', request, signal, ({ limit = 10 }) =>
      this.repository.committed(() => {
        const entries = (['undo', 'redo'] as const).flatMap((stack) =>
          this.repository.recentActions(limit, stack).map((entry) => ({
            stack,
            description: entry.description,
            group: entry.group,
            operation: toWireOperation(entry.action, this.childrenKeysOf),
            at: entry.at,
          })),
        );
        return { entries };
      }),
    );
  }

  backlogAdd(request: RequestOf<'backlogAdd'>, signal?: AbortSignal) {
    return this.run('backlogAdd', request, signal, async ({ content, priority }) => {
      const entry = await this.repository.addBacklog(BacklogCodec.encode(content), priority);
      return { entry: BacklogCodec.toWire(entry) };
    });
  }

  backlogList(request: RequestOf<'backlogList'> = {}, signal?: AbortSignal) {
    return this.run('backlogList', request, signal, ({ limit }) =>
      this.repository.committed(() => {
        const entries = this.repository.listBacklog().map(BacklogCodec.toWire);
        return { entries: limit ? entries.slice(0, limit) : entries };
      }),
    );
  }

  backlogRemove(request: RequestOf<'backlogRemove'>, signal?: AbortSignal) {
    return this.run('backlogRemove', request, signal, async ({ ids }) => {
      const existing = this.repository.listBacklog().filter((entry) => ids.includes(entry.id));
      for (const entry of existing) await this.repository.removeBacklog(entry.id);
      return { removed: existing.map(BacklogCodec.toWire) };
    });
  }

  import(request: RequestOf<'import'>, signal?: AbortSignal) {
    return this.run('import', request, signal, async (parsed) => {
      const exists = (name: string) => this.repository.find(`/${name}`) !== null;
      let elements = 0;
      // Which aspects exist is read in the write's own turn: two concurrent `replace` imports of one aspect then run
      // one after the other (the last one's content wins), instead of both planning from the state before either.
      await this.repository.executeBuilt(
        () => {
          const plan = importActions(parsed, exists);
          elements = plan.elements;
          return plan.actions;
        },
        { group: `import-${Date.now().toString(36)}` },
      );
      return { aspects: parsed.aspects.length, elements };
    });
  }

  export(request: RequestOf<'export'> = {}, signal?: AbortSignal) {
    return this.run('export', request, signal, async ({ aspects }) => ({
      schemaVersion: SCHEMA_VERSION,
      aspects: exportAspects(this.repository, aspects),
    }));
  }

  /** Parses the request, runs `work` (bounded by `signal`) and delivers its failure as a coded BusError. */
  private async run<M extends ResourceMethod>(
    method: M,
    request: unknown,
    signal: AbortSignal | undefined,
    work: (request: RequestOf<M>) => Promise<ReplyOf<M>>,
  ): Promise<ReplyOf<M>> {
    if (signal?.aborted) throw cancelled(method);
    try {
      const parsed = parseRequest(method, request);
      const done = work(parsed);
      return await (signal ? raceAbort(done, signal, () => cancelled(method)) : done);
    } catch (err) {
      throw asBusError(err);
    }
  }

  private findReply(uri: string): FindReply {
    const found = this.repository.find(uri);
    if (!found) throw new ResourceError('NOT_FOUND', `${uri} does not exist`, { uri });
    switch (found.kind) {
      case 'root':
        return { kind: 'root', uri: '/', aspects: found.aspects.map(wireAspect) };
      case 'aspect':
        return { kind: 'aspect', uri, aspect: wireAspect(found.aspect), rootIds: found.rootIds };
      case 'element': {
        const lookup = (u: string) => {
          const f = this.repository.find(u);
          return f?.kind === 'element' ? f.record : undefined;
        };
        return { kind: 'element', uri, element: resourceElement(found.record, lookup) };
      }
    }
  }

  private applyReply(outcome: ExecuteOutcome): ApplyReply {
    return {
      undo: [...outcome.inverses].reverse().map((inverse) => toWireOperation(inverse, this.childrenKeysOf)),
      changedUris: outcome.uris,
    };
  }

  private async replay(which: 'undo' | 'redo'): Promise<UndoRedoReply> {
    const outcome = which === 'undo' ? await this.repository.undo() : await this.repository.redo();
    if (!outcome.performed) return { status: 'empty', action: which };
    return {
      status: 'applied',
      action: which,
      count: outcome.count,
      descriptions: outcome.descriptions,
      changedUris: outcome.uris,
    };
  }
}
