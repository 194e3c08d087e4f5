import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { AspectRecord, AspectsDelta } from '@novelrag/repository';
import { AspectsFile } from './aspects-file';
import { readJsonFile, writeJsonFileAtomic } from './json-file';

/** Format of every file in the meta folder. */
export const META_SCHEMA_VERSION = 1;

const TableName = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
const StoreInfo = z.object({
  schemaVersion: z.literal(META_SCHEMA_VERSION),
  dimensions: z.int().positive(),
  /** The LanceDB tables holding the data (absent: `elements` and `memories`, their names before any resize). */
  tables: z.object({ elements: TableName, memories: TableName }).optional(),
});

/** The LanceDB tables of a data folder. */
export interface StoreTables {
  readonly elements: string;
  readonly memories: string;
}

export const DEFAULT_TABLES: StoreTables = { elements: 'elements', memories: 'memories' };
const Document = z.object({ schemaVersion: z.literal(META_SCHEMA_VERSION), value: z.unknown() });

async function readDocument(path: string): Promise<unknown> {
  const raw = await readJsonFile(path);
  if (raw === null) return null;
  const parsed = Document.safeParse(raw);
  if (!parsed.success) throw new Error(`${path} is not a version ${META_SCHEMA_VERSION} store document`);
  return parsed.data.value ?? null;
}

/**
 * The small documents of the embedded store (history, backlog), one JSON file each, written atomically
 * (tmp + fsync + rename) and cached in memory, and the aspect list, which changes by deltas appended to a log
 * (`AspectsFile`: its root lists can hold a million ids). Files rather than a LanceDB table: each save replaces one
 * whole document, which a rename does atomically without piling up table versions and fragments on every write (the
 * history document, `undo.json`, is saved with every repository write). `store.json` records the vector size the
 * folder's tables hold and their names.
 */
export class StoreMeta {
  private constructor(
    private readonly dir: string,
    private info: { dimensions: number; tables: StoreTables },
    private readonly aspectsFile: AspectsFile,
    private undoJson: unknown,
    private backlogJson: unknown,
  ) {}

  /** The vector size the folder's tables hold. */
  dimensions(): number {
    return this.info.dimensions;
  }

  tables(): StoreTables {
    return this.info.tables;
  }

  /**
   * Records new tables and their vector size (atomically: the commit point of a resize, before the old tables are
   * dropped).
   */
  async saveInfo(dimensions: number, tables: StoreTables): Promise<void> {
    await writeJsonFileAtomic(join(this.dir, 'store.json'), {
      schemaVersion: META_SCHEMA_VERSION,
      dimensions,
      tables,
    });
    this.info = { dimensions, tables: { ...tables } };
  }

  aspects(): AspectRecord[] {
    return structuredClone([...this.aspectsFile.view()]);
  }

  /**
   * The cached aspect list itself, for readers that do not keep or change it (segments): no copy, which at 100k
   * elements (root id lists of tens of thousands of ids) cost ~10 ms per call.
   */
  aspectsView(): readonly AspectRecord[] {
    return this.aspectsFile.view();
  }

  undo(): unknown {
    return structuredClone(this.undoJson);
  }

  backlog(): unknown {
    return structuredClone(this.backlogJson);
  }

  /** Changes the aspect list by `delta`, at the cost of the delta (see `AspectsFile`). */
  updateAspects(delta: AspectsDelta): Promise<void> {
    return this.aspectsFile.update(delta);
  }

  async saveUndo(json: unknown): Promise<void> {
    const copy = structuredClone(json);
    await this.write('undo', copy);
    this.undoJson = copy;
  }

  async saveBacklog(json: unknown): Promise<void> {
    const copy = structuredClone(json);
    await this.write('backlog', copy);
    this.backlogJson = copy;
  }

  private async write(name: string, value: unknown): Promise<void> {
    await writeJsonFileAtomic(join(this.dir, `${name}.json`), { schemaVersion: META_SCHEMA_VERSION, value });
  }

  /**
   * Loads (or initialises, for `dimensions`) the folder. Throws when it holds unknown formats. The recorded vector
   * size may differ from `dimensions`: the store then resizes (see `lancedb-resize.ts`).
   */
  static async open(dir: string, dimensions: number): Promise<StoreMeta> {
    await mkdir(dir, { recursive: true });
    const infoPath = join(dir, 'store.json');
    const raw = await readJsonFile(infoPath);
    let info = { dimensions, tables: DEFAULT_TABLES };
    if (raw === null) {
      await writeJsonFileAtomic(infoPath, { schemaVersion: META_SCHEMA_VERSION, dimensions });
    } else {
      const parsed = StoreInfo.safeParse(raw);
      if (!parsed.success)
        throw new Error(`${infoPath} is not a version ${META_SCHEMA_VERSION} store description`);
      info = { dimensions: parsed.data.dimensions, tables: parsed.data.tables ?? DEFAULT_TABLES };
    }
    const aspects = await AspectsFile.open(dir);
    const undo = await readDocument(join(dir, 'undo.json'));
    const backlog = await readDocument(join(dir, 'backlog.json'));
    return new StoreMeta(dir, info, aspects, undo, backlog);
  }
}
