import { randomBytes } from 'node:crypto';

/**
 * A name unique to this test run, valid as a JetStream stream or consumer name, a KV bucket name and a subject token
 * (letters, digits, `_`, `-`): `<prefix>_<time>_<random>`. Use one per test so tests sharing a server do not collide.
 */
export function uniqueName(prefix: string): string {
  const clean = prefix.replace(/[^A-Za-z0-9_-]/g, '_') || 'test';
  return `${clean}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
