import { parse, stringify } from 'yaml';
import { z } from 'zod';
import {
  type AspectRecord,
  type DumpedElement,
  type ElementRecord,
  ResourceError,
  type ResourceRepository,
  configFromAspect,
  dumped,
} from '../domain';

/**
 * The original NovelRAG project format: an aspect config YAML (`name → {path, description?, children_keys?, ...}`)
 * and one YAML file per aspect holding a list of dumped elements (children inline under their children keys).
 * Files travel as text in the message (`files[path] = yaml`), never as paths on the service's disk.
 */
export const NovelragProject = z.strictObject({
  config: z.string().max(1_000_000),
  files: z.record(z.string().min(1).max(512), z.string().max(1_000_000)),
});
export type NovelragProject = z.infer<typeof NovelragProject>;

const AspectConfigEntry = z
  .object({
    path: z.string().min(1).max(512),
    description: z.string().optional(),
    children_keys: z.array(z.string()).optional(),
  })
  .catchall(z.unknown());
const ConfigFile = z.record(z.string(), AspectConfigEntry);

function parseYaml(text: string, what: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new ResourceError(
      'VALIDATION_FAILED',
      `${what} is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    );
  }
}

export interface ImportSummary {
  readonly aspects: string[];
  readonly elements: number;
}

/**
 * Imports a project into the repository: each aspect is created (ALREADY_EXISTS if present) and its elements are
 * inserted with one root splice, all under one undo group so the whole import can be undone in one step.
 */
export async function importProject(
  repo: ResourceRepository,
  project: NovelragProject,
): Promise<ImportSummary> {
  const parsedConfig = ConfigFile.safeParse(parseYaml(project.config, 'the aspect config') ?? {});
  if (!parsedConfig.success) {
    throw new ResourceError(
      'VALIDATION_FAILED',
      `invalid aspect config: ${parsedConfig.error.issues[0]?.message ?? ''}`,
    );
  }
  const group = `import-${Date.now().toString(36)}`;
  const aspects: string[] = [];
  let elements = 0;
  for (const [name, entry] of Object.entries(parsedConfig.data)) {
    const { path, ...config } = entry;
    const text = project.files[path];
    const data = text === undefined ? [] : (parseYaml(text, `file ${path}`) ?? []);
    if (!Array.isArray(data))
      throw new ResourceError('VALIDATION_FAILED', `file ${path} must hold a YAML list of elements`);
    await repo.addAspect(name, { ...config, children_keys: config.children_keys ?? [] } as never, { group });
    if (data.length > 0) {
      await repo.apply(
        [
          {
            target: 'resource',
            location: { resource_uri: `/${name}`, children_key: null },
            start: 0,
            end: 0,
            data,
          },
        ],
        { group },
      );
    }
    aspects.push(name);
    elements += countElements(data as DumpedElement[]);
  }
  return { aspects, elements };
}

function countElements(items: readonly unknown[]): number {
  let n = 0;
  for (const item of items) {
    n += 1;
    if (item && typeof item === 'object') {
      for (const value of Object.values(item)) {
        if (Array.isArray(value) && value.every((v) => v && typeof v === 'object' && 'id' in v))
          n += countElements(value);
      }
    }
  }
  return n;
}

/** Exports the repository in the same format (`<aspect>.yml` per aspect). */
export function exportProject(repo: ResourceRepository): NovelragProject {
  const snapshot = repo.snapshot();
  const byUri = new Map<string, ElementRecord>(snapshot.records.map((r) => [r.uri, r]));
  const lookup = (uri: string) => byUri.get(uri);
  const config: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  for (const aspect of snapshot.aspects as AspectRecord[]) {
    const path = `${aspect.name}.yml`;
    config[aspect.name] = { path, ...configFromAspect(aspect) };
    const roots = aspect.rootIds
      .map((id) => byUri.get(`/${aspect.name}/${id}`))
      .filter((r): r is ElementRecord => !!r);
    files[path] = stringify(roots.map((r) => dumped(lookup, r)));
  }
  return { config: stringify(config), files };
}
