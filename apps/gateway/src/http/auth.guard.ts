import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from './api-error';
import type { RateLimiter } from './rate-limiter';

const PUBLIC = 'novelrag:public';
/** Marks a route (health, docs) as reachable without an API key and without rate limiting. */
export const Public = () => SetMetadata(PUBLIC, true);

interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  principal?: string;
}

interface HeaderSink {
  setHeader(name: string, value: string): void;
}

export interface AuthOptions {
  readonly keys: readonly string[];
  readonly disabled: boolean;
  /** Counts each authenticated request against its principal (shared by the gateway instances). */
  readonly limiter: RateLimiter;
  /** For the `RateLimit-Policy` header. */
  readonly windowMs: number;
}

const digest = (key: string) => createHash('sha256').update(key).digest();

/**
 * Bearer API keys (compared in constant time on their digests) and a per-key request budget per window. The principal
 * (a short hash of the key, never the key) is put on the request for idempotency scoping and logs. Every counted
 * response carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and `RateLimit-Policy`; past
 * the budget the request is refused with RATE_LIMITED (429) and `Retry-After`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly digests: Buffer[];

  constructor(
    private readonly reflector: Reflector,
    private readonly options: AuthOptions,
  ) {
    this.digests = options.keys.map(digest);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const http = context.switchToHttp();
    const req = http.getRequest<AuthRequest>();
    req.principal = this.options.disabled ? 'local' : this.authenticate(req);
    const decision = await this.options.limiter.take(req.principal);
    const res = http.getResponse<HeaderSink>();
    const resetSeconds = Math.ceil(decision.resetMs / 1000);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(resetSeconds));
    res.setHeader('RateLimit-Policy', `${decision.limit};w=${Math.round(this.options.windowMs / 1000)}`);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(resetSeconds));
      throw new ApiError('RATE_LIMITED', `more than ${decision.limit} requests per minute for this key`);
    }
    return true;
  }

  private authenticate(req: AuthRequest): string {
    const header = req.headers['authorization'];
    const value = Array.isArray(header) ? header[0] : header;
    const match = /^Bearer\s+(\S+)$/i.exec(value ?? '');
    if (!match?.[1])
      throw new ApiError('UNAUTHORIZED', 'missing bearer token (Authorization: Bearer <api key>)');
    const given = digest(match[1]);
    if (!this.digests.some((d) => timingSafeEqual(d, given)))
      throw new ApiError('UNAUTHORIZED', 'invalid API key');
    return given.toString('hex').slice(0, 12);
  }
}
