import type { NatsConnection } from '@nats-io/transport-node';
import { busRequest } from '@novelrag/bus';
import {
  ApplyReply,
  type ApplyRequest,
  BacklogAddReply,
  type BacklogAddRequest,
  FindReply,
  Subjects,
  SearchReply,
  type SearchRequest,
  SegmentsReply,
  type SegmentsRequest,
  type WriteOrigin,
} from '@novelrag/contracts';
import type { z } from 'zod';

/**
 * The resource-service as the built-in tools use it: typed request/reply over NATS. Failures are `BusError`s with the
 * service's code (NOT_FOUND, ALREADY_EXISTS, VALIDATION_FAILED, TIMEOUT...), which the host turns into error outputs.
 */
export class ResourceClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  find(uri: string, signal?: AbortSignal): Promise<FindReply> {
    return this.call(Subjects.resources.find, { uri }, FindReply, signal);
  }

  /** The resource at `uri`, or null when it does not exist. */
  async tryFind(uri: string, signal?: AbortSignal): Promise<FindReply | null> {
    try {
      return await this.find(uri, signal);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchReply> {
    return this.call(Subjects.resources.search, request, SearchReply, signal);
  }

  segments(request: SegmentsRequest, signal?: AbortSignal): Promise<SegmentsReply> {
    return this.call(Subjects.resources.segments, request, SegmentsReply, signal);
  }

  /** Atomic, one undo group; a repeated `idempotencyKey` is answered without applying again. */
  apply(request: ApplyRequest, signal?: AbortSignal): Promise<ApplyReply> {
    return this.call(Subjects.resources.apply, request, ApplyReply, signal);
  }

  backlogAdd(request: BacklogAddRequest, signal?: AbortSignal): Promise<BacklogAddReply> {
    return this.call(Subjects.resources.backlogAdd, request, BacklogAddReply, signal);
  }

  private call<T>(subject: string, payload: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    return busRequest(this.nc, subject, payload, schema, {
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
    });
  }
}

export type { WriteOrigin };
