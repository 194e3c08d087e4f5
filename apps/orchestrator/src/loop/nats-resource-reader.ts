import type { NatsConnection } from '@nats-io/transport-node';
import { busRequest } from '@novelrag/bus';
import {
  AspectsListReply,
  BacklogListReply,
  BacklogRemoveReply,
  OperationsListReply,
  Subjects,
  SearchReply,
  type SearchRequest,
  SegmentsReply,
  type SegmentsRequest,
} from '@novelrag/contracts';
import type { ResourceReader } from './ports';

const DEFAULT_TIMEOUT_MS = 10_000;

/** `ResourceReader` over the resource-service's NATS API (request/reply, replies parsed with their contracts). */
export class NatsResourceReader implements ResourceReader {
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    options: { readonly timeoutMs?: number } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  search(req: SearchRequest, signal?: AbortSignal): Promise<SearchReply> {
    return this.request(Subjects.resources.search, req, SearchReply, signal);
  }

  segments(req: SegmentsRequest, signal?: AbortSignal): Promise<SegmentsReply> {
    return this.request(Subjects.resources.segments, req, SegmentsReply, signal);
  }

  aspects(signal?: AbortSignal): Promise<AspectsListReply> {
    return this.request(Subjects.resources.aspectsList, {}, AspectsListReply, signal);
  }

  backlogList(limit: number, signal?: AbortSignal): Promise<BacklogListReply> {
    return this.request(Subjects.resources.backlogList, { limit }, BacklogListReply, signal);
  }

  backlogRemove(ids: string[], signal?: AbortSignal): Promise<BacklogRemoveReply> {
    return this.request(Subjects.resources.backlogRemove, { ids }, BacklogRemoveReply, signal);
  }

  operations(limit: number, signal?: AbortSignal): Promise<OperationsListReply> {
    return this.request(Subjects.resources.operations, { limit }, OperationsListReply, signal);
  }

  private request<T>(
    subject: string,
    payload: unknown,
    schema: Parameters<typeof busRequest<T>>[3],
    signal: AbortSignal | undefined,
  ): Promise<T> {
    return busRequest(this.nc, subject, payload, schema, {
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
    });
  }
}
