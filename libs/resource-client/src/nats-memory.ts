import type { NatsConnection } from '@nats-io/transport-node';
import type { MemoryItem, MemoryPort, RetrieveOptions, StoredInteraction } from '@novelrag/agenturn';
import { busRequest } from '@novelrag/bus';
import {
  MemoryForgetReply,
  MemoryRetrieveReply,
  MemoryStoreReply,
  MemorySummaryReply,
  SCHEMA_VERSION,
  Subjects,
} from '@novelrag/contracts';
import type { z } from 'zod';
import { DEFAULT_RESOURCE_TIMEOUT_MS } from './nats-resource-service';

export interface NatsMemoryOptions {
  /** Bound on each reply (default DEFAULT_RESOURCE_TIMEOUT_MS); past it the call fails with TIMEOUT. */
  readonly timeoutMs?: number;
}

/**
 * The `MemoryPort` over the resource-service's thread memory (request/reply on `Subjects.memory`). Replies are parsed
 * with their contracts (a reply that violates one is INTERNAL); transport failures are TIMEOUT, NO_RESPONDERS or
 * UNAVAILABLE, an abort CANCELLED; the service's own errors keep their code (VALIDATION_FAILED for a request out of
 * the contract's bounds). Errors are coded `BusError`s: identity by `code`, as the port asks.
 */
export class NatsMemory implements MemoryPort {
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsMemoryOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RESOURCE_TIMEOUT_MS;
  }

  async sessionSummary(threadId: string, signal?: AbortSignal): Promise<string | null> {
    const reply = await this.call(Subjects.memory.summary, { threadId }, MemorySummaryReply, signal);
    return reply.summary;
  }

  async retrieveRelevant(
    query: string,
    threadId: string,
    options: RetrieveOptions = {},
  ): Promise<MemoryItem[]> {
    const request = { threadId, query, ...(options.limit !== undefined ? { limit: options.limit } : {}) };
    const reply = await this.call(Subjects.memory.retrieve, request, MemoryRetrieveReply, options.signal);
    return reply.items;
  }

  async storeInteraction(interaction: StoredInteraction, signal?: AbortSignal): Promise<void> {
    const { threadId, goalId, question, answer, summary, facts } = interaction;
    const request = {
      threadId,
      goalId,
      question,
      answer,
      ...(summary !== undefined ? { summary } : {}),
      ...(facts !== undefined ? { facts: [...facts] } : {}),
    };
    await this.call(Subjects.memory.store, request, MemoryStoreReply, signal);
  }

  async forget(threadId: string, signal?: AbortSignal): Promise<number> {
    const reply = await this.call(Subjects.memory.forget, { threadId }, MemoryForgetReply, signal);
    return reply.removed;
  }

  private call<T>(
    subject: string,
    request: Record<string, unknown>,
    reply: z.ZodType<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    return busRequest(this.nc, subject, { schemaVersion: SCHEMA_VERSION, ...request }, reply, {
      timeoutMs: this.timeoutMs,
      ...(signal ? { signal } : {}),
    });
  }
}
