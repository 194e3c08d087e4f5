import type { NatsConnection } from '@nats-io/transport-node';
import { busRequest } from '@novelrag/bus';
import { Subjects } from '@novelrag/contracts';
import { type ReplyOf, type RequestOf, replySchema } from './calls';
import type { ResourceMethod, ResourceService } from './resource-service.port';

export const DEFAULT_RESOURCE_TIMEOUT_MS = 10_000;

export interface NatsResourceServiceOptions {
  /** Bound on each reply (default DEFAULT_RESOURCE_TIMEOUT_MS); past it the call fails with TIMEOUT. */
  readonly timeoutMs?: number;
}

/**
 * The ResourceService over the resource-service's NATS API (request/reply on `Subjects.resources`). Replies are parsed
 * with their contracts (a reply that violates one is an INTERNAL error); transport failures map to TIMEOUT,
 * NO_RESPONDERS or UNAVAILABLE; the service's own errors keep their code (see `busRequest`).
 */
export class NatsResourceService implements ResourceService {
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsResourceServiceOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RESOURCE_TIMEOUT_MS;
  }

  find(request: RequestOf<'find'>, signal?: AbortSignal) {
    return this.call('find', request, signal);
  }
  search(request: RequestOf<'search'>, signal?: AbortSignal) {
    return this.call('search', request, signal);
  }
  segments(request: RequestOf<'segments'>, signal?: AbortSignal) {
    return this.call('segments', request, signal);
  }
  apply(request: RequestOf<'apply'>, signal?: AbortSignal) {
    return this.call('apply', request, signal);
  }
  relationships(request: RequestOf<'relationships'>, signal?: AbortSignal) {
    return this.call('relationships', request, signal);
  }
  aspectsList(request: RequestOf<'aspectsList'> = {}, signal?: AbortSignal) {
    return this.call('aspectsList', request, signal);
  }
  aspectsCreate(request: RequestOf<'aspectsCreate'>, signal?: AbortSignal) {
    return this.call('aspectsCreate', request, signal);
  }
  aspectsRemove(request: RequestOf<'aspectsRemove'>, signal?: AbortSignal) {
    return this.call('aspectsRemove', request, signal);
  }
  undo(request: RequestOf<'undo'> = {}, signal?: AbortSignal) {
    return this.call('undo', request, signal);
  }
  redo(request: RequestOf<'redo'> = {}, signal?: AbortSignal) {
    return this.call('redo', request, signal);
  }
  operations(request: RequestOf<'operations'> = {}, signal?: AbortSignal) {
    return this.call('operations', request, signal);
  }
  backlogAdd(request: RequestOf<'backlogAdd'>, signal?: AbortSignal) {
    return this.call('backlogAdd', request, signal);
  }
  backlogList(request: RequestOf<'backlogList'> = {}, signal?: AbortSignal) {
    return this.call('backlogList', request, signal);
  }
  backlogRemove(request: RequestOf<'backlogRemove'>, signal?: AbortSignal) {
    return this.call('backlogRemove', request, signal);
  }
  import(request: RequestOf<'import'>, signal?: AbortSignal) {
    return this.call('import', request, signal);
  }
  export(request: RequestOf<'export'> = {}, signal?: AbortSignal) {
    return this.call('export', request, signal);
  }

  private call<M extends ResourceMethod>(
    method: M,
    request: RequestOf<M>,
    signal: AbortSignal | undefined,
  ): Promise<ReplyOf<M>> {
    return busRequest(this.nc, Subjects.resources[method], request, replySchema(method), {
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
    });
  }
}
