import { BusError, toErrorEnvelope } from '@novelrag/bus';
import { ZodError } from 'zod';

/**
 * A failure of the in-process service as the bus would deliver it: coded errors (ResourceError, agenturn errors) and
 * zod errors (VALIDATION_FAILED) become the `BusError` a remote caller would get, so callers check `code` the same way
 * for every implementation. Anything else is a bug and is rethrown as it is (its detail stays for the log).
 */
export function asBusError(err: unknown): unknown {
  if (err instanceof BusError) return err;
  const coded = err instanceof ZodError || (err instanceof Error && 'code' in err);
  if (!coded) return err;
  const envelope = toErrorEnvelope(err);
  return envelope.code === 'INTERNAL' ? err : new BusError(envelope);
}

export const cancelled = (method: string): BusError =>
  BusError.of('CANCELLED', `resources.${method} cancelled`);
