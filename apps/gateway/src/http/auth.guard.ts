import { createHash, timingSafeEqual } from 'node:crypto';
import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from './api-error';

const PUBLIC = 'novelrag:public';
/** Marks a route (health, docs) as reachable without an API key and without rate limiting. */
export const Public = () => SetMetadata(PUBLIC, true);

interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  principal?: string;
}

export interface AuthOptions {
  readonly keys: readonly string[];
  readonly disabled: boolean;
  readonly perMinute: number;
}

const digest = (key: string) => createHash('sha256').update(key).digest();

/**
 * Bearer API keys (compared in constant time on their digests) and a per-key token bucket. The principal (a short
 * hash of the key, never the key) is put on the request for idempotency scoping and logs.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly digests: Buffer[];
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly reflector: Reflector,
    private readonly options: AuthOptions,
  ) {
    this.digests = options.keys.map(digest);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const req = context.switchToHttp().getRequest<AuthRequest>();
    req.principal = this.options.disabled ? 'local' : this.authenticate(req);
    this.limit(req.principal);
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

  private limit(principal: string): void {
    const now = Date.now();
    const capacity = this.options.perMinute;
    const bucket = this.buckets.get(principal) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 60_000) * capacity);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.buckets.set(principal, bucket);
      throw new ApiError('RATE_LIMITED', `more than ${capacity} requests per minute for this key`);
    }
    bucket.tokens -= 1;
    this.buckets.set(principal, bucket);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value as string);
  }
}
