import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { z } from 'zod';
import { DEFAULT_QDRANT_COLLECTION } from '../store/qdrant-store';

/** What an owner answers on its store's owner subject. */
const Owner = z.object({ instance: z.string().min(1).max(256), startedAt: z.number().int().nonnegative() });
type Owner = z.infer<typeof Owner>;

const SUBJECT_PREFIX = 'novelrag.resources.owner';

/**
 * One store, one resource-service: each instance keeps its repository in memory, so a second one writing the same
 * store would overwrite the first one's history document and never see its writes. The embedded store is guarded by
 * its folder lock on one host; this guard covers every store, Qdrant included, across hosts: the owner answers on a
 * subject named after the store, and a newcomer that hears an owner does not start.
 *
 * Two instances starting at once both subscribe before they listen again: each then hears the other, and the one
 * that started later (then the greater instance id) steps back.
 */
export class StoreOwnership {
  private constructor(private readonly subscription: Subscription) {}

  /** Becomes the owner of the store `storeKey`; throws an Error naming the live owner otherwise. */
  static async claim(
    nc: NatsConnection,
    store: { readonly key: string; readonly label: string },
    instance: string,
    waitMs = 250,
  ): Promise<StoreOwnership> {
    const subject = `${SUBJECT_PREFIX}.${store.key}`;
    const me: Owner = { instance, startedAt: Date.now() };
    const refuse = (owner: Owner) =>
      new Error(
        `The store ${store.label} is in use by resource-service instance ${owner.instance} (since ` +
          `${new Date(owner.startedAt).toISOString()}); run one resource-service per store.`,
      );
    const [current] = await listen(nc, subject, waitMs);
    if (current) throw refuse(current);
    const subscription = nc.subscribe(subject, {
      callback: (_err, msg) => {
        if (msg.reply) msg.respond(JSON.stringify(me));
      },
    });
    try {
      await nc.flush();
      const earlier = (await listen(nc, subject, waitMs)).find(
        (other) =>
          other.instance !== me.instance &&
          (other.startedAt < me.startedAt ||
            (other.startedAt === me.startedAt && other.instance < me.instance)),
      );
      if (earlier) throw refuse(earlier);
    } catch (err) {
      subscription.unsubscribe();
      throw err;
    }
    return new StoreOwnership(subscription);
  }

  /** Stops answering (the store is free for another instance). */
  release(): void {
    this.subscription.unsubscribe();
  }
}

/** The owners that answer on `subject` within `waitMs` (malformed answers are ignored). */
async function listen(nc: NatsConnection, subject: string, waitMs: number): Promise<Owner[]> {
  const inbox = createInbox();
  const owners: Owner[] = [];
  const sub = nc.subscribe(inbox, {
    callback: (_err, msg) => {
      try {
        const owner = Owner.safeParse(msg.json());
        if (owner.success) owners.push(owner.data);
      } catch {
        // not JSON: ignored
      }
    },
  });
  try {
    nc.publish(subject, '', { reply: inbox });
    await new Promise((r) => setTimeout(r, waitMs));
  } finally {
    sub.unsubscribe();
  }
  return owners;
}

/** The identity of the configured store: its Qdrant URL and collection, or the embedded folder on this host. */
export function storeIdentity(env: {
  readonly QDRANT_URL?: string | undefined;
  readonly NOVELRAG_DATA_DIR: string;
}): {
  key: string;
  label: string;
} {
  const label = env.QDRANT_URL
    ? `qdrant ${env.QDRANT_URL.replace(/\/+$/, '')} collection ${DEFAULT_QDRANT_COLLECTION}`
    : `lancedb ${hostname()}:${resolve(env.NOVELRAG_DATA_DIR, 'store')}`;
  return { key: createHash('sha256').update(label).digest('hex').slice(0, 16), label };
}
