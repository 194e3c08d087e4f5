import type { NatsConnection } from '@nats-io/transport-node';
import { busRequest } from '@novelrag/bus';
import { type AspectDump, ImportReply, type ImportRequest, Subjects } from '@novelrag/contracts';

/** One aspect to seed: its name and its elements (ids and properties), without metadata or children keys. */
export interface SeedAspect {
  readonly name: string;
  readonly elements: AspectDump['elements'];
}

/** Puts aspects and their elements into the running system's repository (a `resources.import` merge), bounded. */
export async function seedRepository(
  nc: NatsConnection,
  aspects: readonly SeedAspect[],
): Promise<ImportReply> {
  const request: ImportRequest = {
    schemaVersion: 1,
    mode: 'merge',
    aspects: aspects.map((a) => ({
      aspect: { name: a.name, childrenKeys: [], metadata: {} },
      elements: [...a.elements],
    })),
  };
  return busRequest(nc, Subjects.resources.import, request, ImportReply, { timeoutMs: 10_000 });
}
