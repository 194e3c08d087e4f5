import { type DynamicModule, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ServiceContext } from '@novelrag/bus';
import { type ResourceChangeCause, SCHEMA_VERSION, Subjects } from '@novelrag/contracts';
import { createEmbedderFromEnv } from '@novelrag/llm';
import type { ResourceServiceEnv } from '../config';
import {
  type ChangeCause,
  type Embedder,
  LocalEmbedder,
  ResourceRepository,
  type ResourceStore,
  ThreadMemory,
} from '@novelrag/repository';
import { createStore } from '../store';
import { MemoryController } from '../memory/memory.controller';
import { ResourcesController } from './resources.controller';
import { StoreOwnership, storeIdentity } from './store-owner';
import { RESOURCE_BACKEND, RESOURCE_REPOSITORY, THREAD_MEMORY } from './tokens';

/** What the service serves, over one store and one embedder. */
export interface ResourceBackend {
  readonly repository: ResourceRepository;
  /** Thread memories in the same store, embedded by the same embedder. */
  readonly memory: ThreadMemory;
}

/**
 * Opens the store, the repository and the thread memory, registers the store health check and publishes
 * `resources.changed`.
 */
export async function openBackend(ctx: ServiceContext<ResourceServiceEnv>): Promise<ResourceBackend> {
  const log = ctx.logger.child('Resources');
  const remote = createEmbedderFromEnv(ctx.env);
  const embedder: Embedder = remote ?? new LocalEmbedder();
  if (!remote) {
    log.warn(
      'no embeddings model configured (NOVELRAG_EMBEDDING_MODEL): using the offline fallback, hashed character n-grams',
    );
  }
  // One store, one service (before anything is opened): a second instance on the same store stops here. The claim
  // lasts as long as this connection (it ends with the service).
  const ownership = await StoreOwnership.claim(
    ctx.connection,
    storeIdentity(ctx.env),
    ctx.identity.instanceId,
  );
  let store: ResourceStore;
  let repo: ResourceRepository;
  try {
    const progress = (message: string): void => log.info(message);
    store = await createStore(ctx.env, embedder.dimensions, {
      embed: (texts) => embedder.embed(texts),
      log: progress,
    });
    repo = await ResourceRepository.open(store, embedder, { log: progress }).catch(async (err: unknown) => {
      await store.close().catch(() => undefined);
      throw err;
    });
  } catch (err) {
    ownership.release();
    throw err;
  }
  ctx.health.register('store', async () => {
    try {
      repo.find('/');
      await store.segments({ segments: [{ uri: '/' }] });
      return { ok: true };
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  });
  const causes = {
    apply: 'apply',
    relationships: 'relationships',
    aspect_added: 'aspect.create',
    aspect_removed: 'aspect.remove',
    undo: 'undo',
    redo: 'redo',
  } as const satisfies Record<ChangeCause, ResourceChangeCause>;
  repo.onChange((event) => {
    ctx.connection.publish(
      Subjects.resourcesChanged,
      JSON.stringify({
        schemaVersion: SCHEMA_VERSION,
        uris: event.uris.slice(0, 1_000),
        cause: causes[event.cause],
        at: new Date().toISOString(),
      }),
    );
  });
  log.info('repository open', {
    store: ctx.env.QDRANT_URL ? 'qdrant' : 'lancedb',
    embedder: remote ? remote.id : `${embedder.id ?? 'local'} (offline fallback)`,
    aspects: repo.snapshot().aspects.length,
  });
  return { repository: repo, memory: new ThreadMemory(store.memory, embedder) };
}

@Injectable()
class RepositoryCloser implements OnApplicationShutdown {
  constructor(@Inject(RESOURCE_REPOSITORY) private readonly repo: ResourceRepository) {}
  async onApplicationShutdown(): Promise<void> {
    await this.repo.close();
  }
}

@Module({})
export class ResourcesModule {
  static forRoot(ctx: ServiceContext<ResourceServiceEnv>): DynamicModule {
    return {
      module: ResourcesModule,
      controllers: [ResourcesController, MemoryController],
      providers: [
        { provide: RESOURCE_BACKEND, useFactory: () => openBackend(ctx) },
        {
          provide: RESOURCE_REPOSITORY,
          useFactory: (backend: ResourceBackend) => backend.repository,
          inject: [RESOURCE_BACKEND],
        },
        {
          provide: THREAD_MEMORY,
          useFactory: (backend: ResourceBackend) => backend.memory,
          inject: [RESOURCE_BACKEND],
        },
        RepositoryCloser,
      ],
    };
  }
}
