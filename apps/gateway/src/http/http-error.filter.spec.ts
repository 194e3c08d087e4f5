import { ClosedConnectionError, NoRespondersError, TimeoutError } from '@nats-io/transport-node';
import { BusError } from '@novelrag/bus';
import { toErrorResponse } from './http-error.filter';

describe('toErrorResponse (anything thrown while serving HTTP → status and coded body)', () => {
  it('maps NATS client errors from direct bus calls to retryable 503/504, not 500', () => {
    expect(toErrorResponse(new TimeoutError())).toMatchObject({ status: 504, body: { code: 'TIMEOUT' } });
    expect(toErrorResponse(new NoRespondersError('novelrag.x'))).toMatchObject({
      status: 503,
      body: { code: 'NO_RESPONDERS' },
    });
    expect(toErrorResponse(new ClosedConnectionError())).toMatchObject({
      status: 503,
      body: { code: 'UNAVAILABLE', message: expect.stringContaining('NATS is unreachable') },
    });
  });

  it('keeps a BusError envelope and hides anything unknown behind INTERNAL', () => {
    expect(toErrorResponse(BusError.of('NOT_FOUND', 'no such goal'))).toEqual({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'no such goal' },
    });
    const secret = new Error('connection string postgres://user:pw@host');
    expect(toErrorResponse(secret)).toEqual({
      status: 500,
      body: { code: 'INTERNAL', message: 'internal error (see the gateway log)' },
    });
  });
});
