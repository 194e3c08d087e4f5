import type { AspectDump, ElementInput, JsonObject } from '@novelrag/contracts';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { type DumpedElement, ResourceError } from '@novelrag/repository';
import { dumpedFromInput, inputFromDumped } from './wire';

/**
 * The original NovelRAG project format: an aspect config YAML (`name → {path, description?, children_keys?, ...}`)
 * and one YAML file per aspect holding a list of dumped elements (children inline under their children keys).
 * Converted to and from the wire's `AspectDump[]` (what `resources.import`/`resources.export` carry); files travel as
 * text, never as paths on a service's disk. A file the config names but the project lacks is an error (never an
 * empty aspect).
 */
export const NovelragProject = z.strictObject({
  /** The aspect config file's text. */
  config: z.string(),
  /** Data files' text by the `path` the config names. */
  files: z.record(z.string(), z.string()),
});
export type NovelragProject = z.infer<typeof NovelragProject>;

const AspectConfigEntry = z
  .object({
    path: z.string().min(1).max(512),
    description: z.string().nullable().optional(),
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
      `${what} is not valid YAML: ${(err as Error).message.split('\n')[0] ?? ''}`,
    );
  }
}

function parseConfig(text: string): z.infer<typeof ConfigFile> {
  const config = ConfigFile.safeParse(parseYaml(text, 'the aspect config') ?? {});
  if (!config.success) {
    throw new ResourceError(
      'VALIDATION_FAILED',
      `invalid aspect config: ${config.error.issues[0]?.message ?? ''}`,
    );
  }
  return config.data;
}

/** The data file paths an aspect config names. */
export function configPaths(configText: string): string[] {
  return Object.values(parseConfig(configText)).map((entry) => entry.path);
}

/** Reads a project into aspect dumps. Throws VALIDATION_FAILED naming the file at fault. */
/** An empty record of a project's files by path, without a prototype: a file may be named `__proto__`. */
export function projectFilesRecord(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

export function projectToDumps(project: NovelragProject): AspectDump[] {
  return Object.entries(parseConfig(project.config)).map(([name, entry]) => {
    // `path` stays in the metadata too: the store keeps no aspect path, and export must write the original's.
    const { description, children_keys: childrenKeys = [], ...metadata } = entry;
    const { path } = entry;
    // Own files only: a config naming `constructor` or `toString` must not find Object.prototype's members.
    const text = Object.hasOwn(project.files, path) ? project.files[path] : undefined;
    if (text === undefined) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `aspect ${name}: file ${path} named by the config is missing`,
        {
          uri: `/${name}`,
        },
      );
    }
    const data = parseYaml(text, `file ${path}`) ?? [];
    if (!Array.isArray(data))
      throw new ResourceError('VALIDATION_FAILED', `file ${path} must hold a YAML list of elements`);
    return {
      aspect: {
        name,
        ...(description != null ? { description } : {}),
        path,
        childrenKeys,
        metadata: metadata as JsonObject,
      },
      elements: (data as DumpedElement[]).map((d) => inputFromDumped(d, childrenKeys)),
    };
  });
}

/** Writes aspect dumps in the project format (`<aspect>.yml` unless the aspect or its metadata names its path). */
export function dumpsToProject(dumps: readonly AspectDump[]): NovelragProject {
  const config: Record<string, unknown> = {};
  const files = projectFilesRecord();
  for (const { aspect, elements } of dumps) {
    const { path: kept, ...metadata } = aspect.metadata;
    const path = aspect.path ?? (typeof kept === 'string' && kept !== '' ? kept : `${aspect.name}.yml`);
    config[aspect.name] = {
      path,
      ...(aspect.description != null ? { description: aspect.description } : {}),
      children_keys: aspect.childrenKeys,
      ...metadata,
    };
    files[path] = stringify(elements.map((e: ElementInput) => dumpedFromInput(e)));
  }
  return { config: stringify(config), files };
}
