import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AspectRecord } from '@novelrag/repository';
import { readJsonFile, writeJsonFileAtomic } from './json-file';

/** Format of every file in the meta folder. */
export const META_SCHEMA_VERSION = 1;

const StoreInfo = z.object({ schemaVersion: z.literal(META_SCHEMA_VERSION), dimensions: z.int().positive() });
const Document = z.object({ schemaVersion: z.literal(META_SCHEMA_VERSION), value: z.unknown() });
const Aspects = z.array(AspectRecord);

async function readDocument(path: string): Promise<unknown> {
  const raw = await readJsonFile(path);
  if (raw === null) return null;
  const parsed = Document.safeParse(raw);
  if (!parsed.success) throw new Error(`${path} is not a version ${META_SCHEMA_VERSION} store document`);
  return parsed.data.value ?? null;
}

/**
 * The small documents of the embedded store (aspects, history, backlog), one JSON file each, written atomically
 * (tmp + fsync + rename) and cached in memory. Files rather than a LanceDB table: each save replaces one whole
 * document, which a rename does atomically without piling up table versions and fragments on every write (the
 * history document, `undo.json`, is saved with every repository write). `store.json` records the vector size the
 * folder was made for.
 */
export class StoreMeta {
  private constructor(
    private readonly dir: string,
    private aspectList: AspectRecord[],
    private undoJson: unknown,
    private backlogJson: unknown,
  ) {}

  aspects(): AspectRecord[] {
    return structuredClone(this.aspectList);
  }

  undo(): unknown {
    return structuredClone(this.undoJson);
  }

  backlog(): unknown {
    return structuredClone(this.backlogJson);
  }

  async saveAspects(aspects: readonly AspectRecord[]): Promise<void> {
    const copy = structuredClone([...aspects]);
    await this.write('aspects', copy);
    this.aspectList = copy;
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

  private write(name: string, value: unknown): Promise<void> {
    return writeJsonFileAtomic(join(this.dir, `${name}.json`), { schemaVersion: META_SCHEMA_VERSION, value });
  }

  /** Loads (or initialises) the folder. Throws when it was made for other dimensions or holds unknown formats. */
  static async open(dir: string, dimensions: number): Promise<StoreMeta> {
    await mkdir(dir, { recursive: true });
    const infoPath = join(dir, 'store.json');
    const raw = await readJsonFile(infoPath);
    if (raw === null) {
      await writeJsonFileAtomic(infoPath, { schemaVersion: META_SCHEMA_VERSION, dimensions });
    } else {
      const info = StoreInfo.safeParse(raw);
      if (!info.success)
        throw new Error(`${infoPath} is not a version ${META_SCHEMA_VERSION} store description`);
      if (info.data.dimensions !== dimensions) {
        throw new Error(
          `The store in ${dir} was created for ${info.data.dimensions}-dimensional vectors, but the embedder ` +
            `produces ${dimensions}: use the same embedding model, or a new data folder and re-import`,
        );
      }
    }
    const aspects = Aspects.parse((await readDocument(join(dir, 'aspects.json'))) ?? []);
    const undo = await readDocument(join(dir, 'undo.json'));
    const backlog = await readDocument(join(dir, 'backlog.json'));
    return new StoreMeta(dir, aspects, undo, backlog);
  }
}
