import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  DEFAULT_MEMORY_LIMIT,
  MemoryForgetRequest,
  type MemoryForgetReply,
  MemoryRetrieveRequest,
  type MemoryRetrieveReply,
  MemoryStoreRequest,
  type MemoryStoreReply,
  MemorySummaryRequest,
  type MemorySummaryReply,
  SCHEMA_VERSION,
  Subjects,
} from '@novelrag/contracts';
import type { ThreadMemory } from '@novelrag/repository';
import { THREAD_MEMORY } from '../resources/tokens';

const S = Subjects.memory;

/**
 * The thread memory's NATS API (`novelrag.memory.*`) over this process's store: every payload is parsed with its
 * contract first (a bad one is VALIDATION_FAILED); store and embedder failures are UNAVAILABLE; coded errors travel
 * as coded envelopes through the bus transport.
 */
@Controller()
export class MemoryController {
  constructor(@Inject(THREAD_MEMORY) private readonly memory: ThreadMemory) {}

  @MessagePattern(S.summary)
  async summary(@Payload() body: unknown): Promise<MemorySummaryReply> {
    const { threadId } = MemorySummaryRequest.parse(body);
    return { schemaVersion: SCHEMA_VERSION, summary: await this.memory.sessionSummary(threadId) };
  }

  @MessagePattern(S.retrieve)
  async retrieve(@Payload() body: unknown): Promise<MemoryRetrieveReply> {
    const { threadId, query, limit } = MemoryRetrieveRequest.parse(body);
    const items = await this.memory.retrieveRelevant(query, threadId, limit ?? DEFAULT_MEMORY_LIMIT);
    return { schemaVersion: SCHEMA_VERSION, items };
  }

  @MessagePattern(S.store)
  async store(@Payload() body: unknown): Promise<MemoryStoreReply> {
    const { schemaVersion: _version, ...interaction } = MemoryStoreRequest.parse(body);
    return { schemaVersion: SCHEMA_VERSION, stored: await this.memory.storeInteraction(interaction) };
  }

  @MessagePattern(S.forget)
  async forget(@Payload() body: unknown): Promise<MemoryForgetReply> {
    const { threadId } = MemoryForgetRequest.parse(body);
    return { schemaVersion: SCHEMA_VERSION, removed: await this.memory.forget(threadId) };
  }
}
