import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './generate';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

function markdownFiles(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? markdownFiles(path.join(dir, e.name))
      : e.name.endsWith('.md')
        ? [path.join(dir, e.name)]
        : [],
  );
}

const DOCUMENTS = ['README.md', 'BENCHMARKS.md', ...markdownFiles('docs')];

describe('README as the entry point', () => {
  const readme = read('README.md');

  it('is at most 10 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(10 * 1024);
  });

  it('names every app and lib in its map', () => {
    const projects = ['apps', 'libs'].flatMap((dir) =>
      readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(path.join(REPO_ROOT, dir, e.name, 'project.json')))
        .map((e) => `${dir}/${e.name}`),
    );
    expect(projects.length).toBeGreaterThan(8);
    expect(projects.filter((p) => !readme.includes(`\`${p}\``))).toEqual([]);
  });

  it('links every document in docs/', () => {
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#]+\.md)/g)].map((m) => m[1]));
    const top = markdownFiles('docs').filter((f) => path.dirname(f) === 'docs');
    expect(top.filter((f) => !linked.has(f))).toEqual([]);
  });
});

describe.each(DOCUMENTS)('%s', (file) => {
  const text = read(file);

  it('links only files that exist in the repository', () => {
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split('#')[0]!)
      .filter((t) => t !== '' && !/^[a-z]+:/.test(t));
    const missing = targets.filter((t) => {
      const resolved = path.resolve(REPO_ROOT, path.dirname(file), t);
      return !resolved.startsWith(REPO_ROOT + path.sep) || !existsSync(resolved);
    });
    expect(missing).toEqual([]);
  });

  it('refers to nothing outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared|\/work\/|ARCHITECTURE\.md|stack-facts/);
  });
});
