import type { AspectsDelta, RootsSpan } from './aspects-delta';
import { ResourceError } from './errors';
import { cloneJson } from './json';
import { type Aspect, type AspectRecord, dumped, type DumpedElement, type ElementRecord } from './model';
import type { FindResult, TreeSnapshot } from './tree-types';
import type { SegmentSource } from './segments';
import { parseUri } from './uri';

export interface AspectState {
  aspect: Aspect;
  rootIds: string[];
}

/**
 * The read side of `ResourceTree`: the aspects (ordered) with their root id lists, the URI → record lookup table
 * covering every element at every depth, and the reads over them. Records handed out are copies, except where a
 * method says otherwise (`peek`, `segmentSource`).
 */
export abstract class TreeReads {
  protected aspects = new Map<string, AspectState>();
  protected readonly lut = new Map<string, ElementRecord>();
  protected readonly lookup = (uri: string): ElementRecord | undefined => this.lut.get(uri);

  /** Number of elements (all depths). */
  get size(): number {
    return this.lut.size;
  }

  /** The whole state, for persistence and comparisons. */
  snapshot(): TreeSnapshot {
    const records = Array.from(this.liveRecords(), (record) => cloneJson(record as ElementRecord));
    return { aspects: this.aspectRecords(), records };
  }

  /**
   * Every live element, not copies, in snapshot order: for callers that read each one at once (indexing every
   * element on open; a snapshot of 1M elements held ~700 MB of copies at a time).
   */
  *liveRecords(): Generator<Readonly<ElementRecord>> {
    for (const { aspect, rootIds } of this.aspects.values()) {
      for (const id of rootIds) yield* this.liveSubtree(`/${aspect.name}/${id}`);
    }
  }

  private *liveSubtree(uri: string): Generator<Readonly<ElementRecord>> {
    const record = this.lut.get(uri);
    if (!record) return;
    yield record;
    for (const ids of Object.values(record.children))
      for (const id of ids) yield* this.liveSubtree(`${uri}/${id}`);
  }

  /** The aspects with their root lists, in order. */
  aspectRecords(): AspectRecord[] {
    return [...this.aspects.values()].map(({ aspect, rootIds }) => ({
      ...cloneJson(aspect),
      rootIds: [...rootIds],
    }));
  }

  /**
   * The aspect list's change by a write that created the aspects `touched` marks 'put' and spliced the root lists
   * of the others with the spans it gives (see `AspectsDelta`); aspects no longer present are left out.
   */
  aspectsDelta(touched: ReadonlyMap<string, RootsSpan | 'put'>): AspectsDelta {
    const delta: AspectsDelta = { order: [...this.aspects.keys()], put: [], roots: [] };
    for (const [name, span] of touched) {
      const state = this.aspects.get(name);
      if (!state) continue;
      if (span === 'put') {
        delta.put.push({ ...cloneJson(state.aspect), rootIds: [...state.rootIds] });
      } else {
        const ids = state.rootIds.slice(span.head, state.rootIds.length - span.tail);
        delta.roots.push({ aspect: name, head: span.head, ids, tail: span.tail });
      }
    }
    return delta;
  }

  getAspect(name: string): Aspect | undefined {
    const state = this.aspects.get(name);
    return state ? cloneJson(state.aspect) : undefined;
  }

  /**
   * The live element at `uri`, not a copy, or undefined: for callers that only read it at once (building an
   * element's search text reads its neighbours' names, and copying each neighbour cost more than the text itself).
   */
  peek(uri: string): Readonly<ElementRecord> | undefined {
    return this.lut.get(uri);
  }

  /** What `buildSegments` reads, without copies (it copies what it returns). */
  segmentSource(): SegmentSource {
    const aspects = [...this.aspects.values()].map(({ aspect, rootIds }) => ({ ...aspect, rootIds }));
    return { aspects, record: this.lookup };
  }

  /** The element at `uri` (a copy), or undefined. Does not validate the URI. */
  get(uri: string): ElementRecord | undefined {
    return this.lut.has(uri) ? this.copy(uri) : undefined;
  }

  has(uri: string): boolean {
    return this.lut.has(uri);
  }

  /** `/` → all aspects; `/{aspect}` → the aspect and its root ids; deeper → the element; null when absent. Throws INVALID_URI. */
  find(uri: string): FindResult | null {
    const parsed = parseUri(uri);
    switch (parsed.kind) {
      case 'root':
        return { kind: 'root', aspects: [...this.aspects.values()].map((state) => cloneJson(state.aspect)) };
      case 'aspect': {
        const state = this.aspects.get(parsed.aspect);
        return state
          ? { kind: 'aspect', aspect: cloneJson(state.aspect), rootIds: [...state.rootIds] }
          : null;
      }
      case 'element':
        return this.lut.has(uri) ? { kind: 'element', record: this.copy(uri) } : null;
    }
  }

  /** The dumped (nested, persisted) form of an element's subtree. Throws NOT_FOUND. */
  dump(uri: string): DumpedElement {
    return dumped(this.lookup, this.element(uri));
  }

  /** Every URI of the subtree rooted at `uri` (itself first, pre-order); empty when absent. */
  subtree(uri: string): string[] {
    const record = this.lut.get(uri);
    if (!record) return [];
    const out = [uri];
    for (const ids of Object.values(record.children))
      for (const id of ids) out.push(...this.subtree(`${uri}/${id}`));
    return out;
  }

  /** The live element record. Throws INVALID_URI, VALIDATION_FAILED (not an element URI), NOT_FOUND. */
  protected element(uri: string): ElementRecord {
    const parsed = parseUri(uri);
    if (parsed.kind !== 'element') {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `${uri} is not an element URI (expected /{aspect}/{id}...)`,
        { uri },
      );
    }
    const record = this.lut.get(uri);
    if (!record) throw new ResourceError('NOT_FOUND', `Resource ${uri} not found`, { uri });
    return record;
  }

  protected aspectState(name: string): AspectState {
    const state = this.aspects.get(name);
    if (!state)
      throw new ResourceError('CONFLICT', `Aspect ${name} is missing from the tree`, { uri: `/${name}` });
    return state;
  }

  protected copy(uri: string): ElementRecord {
    return cloneJson(this.lut.get(uri) as ElementRecord);
  }
}
