import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The repository's root (the folder holding `nx.json`), found by walking up from this file, so it is the same whether
 * the test kit runs from its sources (Jest) or from its compiled `dist/`.
 */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'nx.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no nx.json above ${from}: not inside the repository`);
  }
}

export const REPO_ROOT = findRepoRoot(__dirname);
