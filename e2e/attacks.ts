import type { NatsConnection } from '@nats-io/transport-node';

/** Sends a request the identity may not publish and expects the server's refusal (never an answer). */
export async function refusedRequest(nc: NatsConnection, subject: string, body = ''): Promise<void> {
  const escaped = subject.replace(/[$.*>]/g, (c) => `\\${c}`);
  await expect(nc.request(subject, body, { timeout: 5_000 })).rejects.toThrow(
    new RegExp(`Permissions Violation for Publish to "${escaped}"`),
  );
}
