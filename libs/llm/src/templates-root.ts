import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@novelrag/agenturn';

function isDirectory(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

function walkUp(from: string): string | undefined {
  let dir = path.resolve(from);
  for (;;) {
    const candidate = path.join(dir, 'templates');
    if (isDirectory(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Where the prompt templates live: `NOVELRAG_TEMPLATES_DIR` when set (must exist), else the first `templates/`
 * folder found walking up from the working directory, then from this module's folder (a built service in `dist/`
 * finds the repository's or the image's `templates/`).
 *
 * Throws `ConfigError` when the variable names a missing folder or nothing is found.
 */
export function findTemplatesRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env['NOVELRAG_TEMPLATES_DIR'];
  if (configured && configured.trim() !== '') {
    const resolved = path.resolve(configured);
    if (!isDirectory(resolved)) {
      throw new ConfigError(`NOVELRAG_TEMPLATES_DIR: "${resolved}" is not a directory`);
    }
    return resolved;
  }
  const found = walkUp(process.cwd()) ?? walkUp(__dirname);
  if (!found) {
    throw new ConfigError(
      'no templates/ folder found above the working directory; set NOVELRAG_TEMPLATES_DIR',
    );
  }
  return found;
}
