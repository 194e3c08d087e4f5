import { type ArgumentsHost, Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { toErrorEnvelope } from './errors';
import type { ContextLogger } from './logger';

/** Keeps coded errors coded across Nest's RPC layer (Nest would turn them into "Internal server error"). */
@Catch()
export class BusExceptionFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: ContextLogger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    const envelope = toErrorEnvelope(exception);
    if (envelope.code === 'INTERNAL') {
      const detail =
        exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception);
      this.logger.error('unhandled error in handler', { error: detail });
    }
    return throwError(() => envelope);
  }
}
