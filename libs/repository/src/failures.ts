import { isResourceError, ResourceError } from './errors';

// How the repository turns failures into ResourceErrors.

/** A store/embedder failure as UNAVAILABLE (ResourceErrors pass through unchanged). */
export function unavailable(what: string, err: unknown): ResourceError {
  if (isResourceError(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new ResourceError('UNAVAILABLE', `Could not ${what}: ${reason}`, undefined, { cause: err });
}

/** Runs a store/embedder call, rethrowing its failure as UNAVAILABLE. */
export async function guard<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw unavailable(what, err);
  }
}

/** Rethrows a ResourceError of op `index` of a multi-op batch with the index in its message and details. */
export function withOperationIndex<T>(index: number, total: number, call: () => T): T {
  try {
    return call();
  } catch (err) {
    if (!isResourceError(err) || total <= 1) throw err;
    throw new ResourceError(
      err.code,
      `Operation ${index + 1} of ${total}: ${err.message}`,
      { ...err.details, operationIndex: index },
      { cause: err },
    );
  }
}
