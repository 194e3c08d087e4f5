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
} from '@novelrag/repository';
import { createStore } from '../store';
import { ResourcesController } from './resources.controller';
import { StoreOwnership, storeIdentity } from './store-owner';
import { RESOURCE_REPOSITORY } from './tokens';

/** Opens the store and the repository, registers the store health check and publishes `resources.changed`. */
export async function openRepository(ctx: ServiceContext<ResourceServiceEnv>): Promise<ResourceRepository> {
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
    store = await createStore(ctx.env, embedder.dimensions);
    repo = await ResourceRepository.open(store, embedder).catch(async (err: unknown) => {
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
  return repo;
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
      controllers: [ResourcesController],
      providers: [{ provide: RESOURCE_REPOSITORY, useFactory: () => openRepository(ctx) }, RepositoryCloser],
    };
  }
}
