import { Controller, Delete, HttpCode, Inject, Param, type Provider } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { NatsConnection } from '@nats-io/transport-node';
import type { MemoryPort } from '@novelrag/agenturn';
import { NATS_CONNECTION } from '@novelrag/bus';
import { type MemoryRemoved, ThreadId } from '@novelrag/contracts';
import { NatsMemory } from '@novelrag/resource-client';
import { ApiError } from '../http/api-error';
import { ApiErrorResponse } from '../http/openapi';

/** Injection token of the thread memory the gateway's memory routes call. */
export const THREAD_MEMORY = Symbol('THREAD_MEMORY');
const TIMEOUT_MS = 15_000;

/** The resource-service's thread memory over the bus (tests may provide another MemoryPort under the same token). */
export const threadMemoryProvider: Provider = {
  provide: THREAD_MEMORY,
  useFactory: (nc: NatsConnection) => new NatsMemory(nc, { timeoutMs: TIMEOUT_MS }),
  inject: [NATS_CONNECTION],
};

/** What a conversation thread remembers, over REST (deletion only: the agents read and write it on the bus). */
@ApiTags('threads')
@ApiBearerAuth()
@Controller('v1/threads')
export class ThreadMemoryController {
  constructor(@Inject(THREAD_MEMORY) private readonly memory: MemoryPort) {}

  @Delete(':id/memory')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Forget everything a thread remembers (summary, past questions and answers, stated facts)',
  })
  @ApiErrorResponse(400, 'Malformed thread id (VALIDATION_FAILED)')
  async forget(@Param('id') id: string): Promise<MemoryRemoved> {
    if (!ThreadId.safeParse(id).success)
      throw new ApiError('VALIDATION_FAILED', 'thread id must be 1-128 characters of A-Z a-z 0-9 _ -');
    return { removed: await this.memory.forget(id) };
  }
}
