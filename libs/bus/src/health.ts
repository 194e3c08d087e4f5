import { Injectable } from '@nestjs/common';

export interface CheckResult {
  readonly ok: boolean;
  readonly detail?: string;
}

export type HealthCheck = () => Promise<CheckResult>;

export interface HealthReport {
  readonly ok: boolean;
  readonly service: string;
  readonly instanceId: string;
  readonly version: string;
  readonly uptimeMs: number;
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/** Readiness checks contributed by features (store reachable, stream present, ...); each is bounded. */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();
  private readonly startedAt = Date.now();

  constructor(
    private readonly service: string,
    private readonly instanceId: string,
    private readonly version: string,
  ) {}

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  async report(timeoutMs = 2_000): Promise<HealthReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, check]): Promise<[string, CheckResult]> => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const result = await Promise.race([
            check(),
            new Promise<CheckResult>((resolve) => {
              timer = setTimeout(
                () => resolve({ ok: false, detail: `timed out after ${timeoutMs} ms` }),
                timeoutMs,
              );
            }),
          ]);
          return [name, result];
        } catch (err) {
          return [name, { ok: false, detail: err instanceof Error ? err.message : String(err) }];
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const checks = Object.fromEntries(entries);
    return {
      ok: entries.every(([, r]) => r.ok),
      service: this.service,
      instanceId: this.instanceId,
      version: this.version,
      uptimeMs: Date.now() - this.startedAt,
      checks,
    };
  }
}
