import type { ReplyOf } from './calls';
import type { ResourceService } from './resource-service.port';

/** The resource at `uri`, or null when it does not exist (NOT_FOUND); any other failure rejects as usual. */
export async function findOrNull(
  service: Pick<ResourceService, 'find'>,
  uri: string,
  signal?: AbortSignal,
): Promise<ReplyOf<'find'> | null> {
  try {
    return await service.find({ uri }, signal);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'NOT_FOUND') return null;
    throw err;
  }
}
