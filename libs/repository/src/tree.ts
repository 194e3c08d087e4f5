import { ResourceError } from './errors';
import { cloneJson } from './json';
import {
  type Aspect,
  type AspectRecord,
  type DumpedElement,
  type ElementRecord,
  recordsFromDumped,
  reservedKeys,
  validateAspect,
} from './model';
import {
  aspectFromConfig,
  configFromAspect,
  type Operation,
  type PropertyOperation,
  type ResourceOperation,
  type ReversibleAction,
  spliceBounds,
} from './operations';
import { type AspectState, TreeReads } from './tree-reads';
import type { ApplyResult, ExecuteResult, TreeChanges } from './tree-types';
import { parseUri } from './uri';

const NO_CHANGES: TreeChanges = { upserted: [], deleted: [], aspectsChanged: false };

/**
 * The in-memory working set: aspects (ordered), their root id lists, and a URI → record lookup table covering every
 * element at every depth (see `TreeReads` for the reads). Every write validates fully before it mutates anything (a
 * failed write leaves the tree untouched) and returns its exact inverse. Records handed out are copies.
 */
export class ResourceTree extends TreeReads {
  /**
   * Replaces the content with persisted state. Records not reachable from an aspect's root list are skipped and
   * reported as `orphans`; child/root ids whose record is absent are dropped and reported as `missing`.
   * The tree takes the records over instead of copying them (a copy of every element doubled the heap of opening a
   * large store): the caller must not change them, nor rely on them once the tree is written to. Throws VALIDATION_FAILED on an invalid aspect.
   */
  load(
    aspects: readonly AspectRecord[],
    records: readonly ElementRecord[],
  ): { orphans: string[]; missing: string[] } {
    this.aspects = new Map();
    this.lut.clear();
    const byUri = new Map(records.map((record) => [record.uri, record]));
    const missing: string[] = [];
    const visit = (aspect: Aspect, base: string, ids: readonly string[]): string[] => {
      const kept: string[] = [];
      for (const id of ids) {
        const uri = `${base}/${id}`;
        const stored = byUri.get(uri);
        if (!stored || this.lut.has(uri)) {
          if (!stored) missing.push(uri);
          continue;
        }
        this.lut.set(uri, stored);
        const children: Record<string, string[]> = {};
        for (const key of aspect.childrenKeys) children[key] = visit(aspect, uri, stored.children[key] ?? []);
        // The stored record itself unless ids were dropped (or keys differ), so that `records` stays as it was read.
        if (!sameChildren(stored.children, children)) this.lut.set(uri, { ...stored, children });
        kept.push(id);
      }
      return kept;
    };
    for (const { rootIds, ...aspect } of aspects) {
      validateAspect(aspect);
      const copy = cloneJson(aspect) as Aspect;
      this.aspects.set(aspect.name, { aspect: copy, rootIds: visit(copy, `/${aspect.name}`, rootIds) });
    }
    const orphans = records.filter((record) => !this.lut.has(record.uri)).map((record) => record.uri);
    return { orphans, missing };
  }

  /** Runs any reversible action. Throws like the specific method. */
  execute(action: ReversibleAction): ExecuteResult {
    switch (action.method) {
      case 'apply': {
        const { inverse, changed } = this.apply(action.op);
        return { inverse: { method: 'apply', op: inverse }, changed };
      }
      case 'update_relationships': {
        const { old, changed } = this.updateRelationships(
          action.source_uri,
          action.target_uri,
          action.relationships,
        );
        const inverse: ReversibleAction = { ...action, relationships: old };
        return { inverse, changed };
      }
      case 'add_aspect': {
        const changed = this.addAspect(
          aspectFromConfig(action.name, action.config),
          action.elements,
          action.index,
        );
        return { inverse: { method: 'remove_aspect', name: action.name }, changed };
      }
      case 'remove_aspect': {
        const { aspect, elements, index, changed } = this.removeAspect(action.name);
        const config = configFromAspect(aspect);
        return { inverse: { method: 'add_aspect', name: aspect.name, config, elements, index }, changed };
      }
    }
  }

  /**
   * Applies one operation. Throws INVALID_URI, NOT_FOUND (element/aspect absent), VALIDATION_FAILED (reserved
   * property, bad bounds, unknown children key, malformed data), ALREADY_EXISTS (duplicate URI, also within `data`).
   */
  apply(op: Operation): ApplyResult {
    switch (op.target) {
      case 'property':
        return this.applyProperties(op);
      case 'resource':
        return this.splice(op);
    }
  }

  /**
   * Replaces the source's descriptions for `target` (one direction only; an empty list removes the key) and
   * returns the old list ([] when none). The target is not required to exist. Throws INVALID_URI,
   * VALIDATION_FAILED (source not an element URI), NOT_FOUND (source absent).
   */
  updateRelationships(
    sourceUri: string,
    targetUri: string,
    relationships: readonly string[],
  ): { old: string[]; changed: TreeChanges } {
    const record = this.element(sourceUri);
    parseUri(targetUri);
    const old = record.relationships[targetUri] ?? [];
    if (relationships.length === 0) delete record.relationships[targetUri];
    else record.relationships[targetUri] = [...relationships];
    return { old: [...old], changed: { ...NO_CHANGES, upserted: [this.copy(sourceUri)] } };
  }

  /**
   * Adds an aspect, optionally with elements (undo of a removal) and at a position in the aspect order.
   * Throws ALREADY_EXISTS, VALIDATION_FAILED / INVALID_URI (bad name, children keys or elements).
   */
  addAspect(aspect: Aspect, elements: readonly DumpedElement[] = [], index?: number): TreeChanges {
    validateAspect(aspect);
    if (this.aspects.has(aspect.name)) {
      throw new ResourceError('ALREADY_EXISTS', `Aspect ${aspect.name} already exists`, {
        uri: `/${aspect.name}`,
      });
    }
    const base = `/${aspect.name}`;
    const records = recordsFromDumped(aspect, base, elements);
    assertNoDuplicates(records, () => false);
    const entries = [...this.aspects.entries()];
    const state: AspectState = {
      aspect: cloneJson(aspect),
      rootIds: records.filter((record) => record.parentUri === null).map((record) => record.id),
    };
    entries.splice(Math.min(index ?? entries.length, entries.length), 0, [aspect.name, state]);
    this.aspects = new Map(entries);
    for (const record of records) this.lut.set(record.uri, record);
    return { upserted: records.map((record) => cloneJson(record)), deleted: [], aspectsChanged: true };
  }

  /** Removes an aspect and all its elements; returns them (dumped) so the removal can be undone. Throws NOT_FOUND. */
  removeAspect(name: string): {
    aspect: Aspect;
    elements: DumpedElement[];
    index: number;
    changed: TreeChanges;
  } {
    const state = this.aspects.get(name);
    if (!state) throw new ResourceError('NOT_FOUND', `Aspect ${name} not found`, { uri: `/${name}` });
    const index = [...this.aspects.keys()].indexOf(name);
    const roots = state.rootIds.map((id) => `/${name}/${id}`);
    const elements = roots.map((uri) => this.dump(uri));
    const deleted = roots.flatMap((uri) => this.subtree(uri));
    for (const uri of deleted) this.lut.delete(uri);
    this.aspects.delete(name);
    return {
      aspect: state.aspect,
      elements,
      index,
      changed: { upserted: [], deleted, aspectsChanged: true },
    };
  }

  private applyProperties(op: PropertyOperation): ApplyResult {
    const record = this.element(op.resource_uri);
    const aspect = this.aspectState(record.aspect).aspect;
    const reserved = reservedKeys(aspect);
    const bad = Object.keys(op.data).filter((key) => key.length === 0 || reserved.has(key));
    if (bad.length > 0) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Property name(s) ${bad.map((key) => JSON.stringify(key)).join(', ')} of ${op.resource_uri} are reserved ` +
          `(${[...reserved].join(', ')}); use update_relationships for relationships and splices for children`,
        { uri: op.resource_uri, keys: bad },
      );
    }
    const undo: PropertyOperation['data'] = {};
    for (const [key, value] of Object.entries(op.data)) {
      const old = record.properties[key];
      undo[key] = old === undefined ? null : cloneJson(old);
      if (value === null) delete record.properties[key];
      else record.properties[key] = cloneJson(value);
    }
    return {
      inverse: { target: 'property', resource_uri: op.resource_uri, data: undo },
      changed: { ...NO_CHANGES, upserted: [this.copy(op.resource_uri)] },
    };
  }

  private splice(op: ResourceOperation): ApplyResult {
    const { resource_uri: uri, children_key: key } = op.location;
    const parsed = parseUri(uri);
    let aspect: Aspect;
    let list: string[];
    let parent: ElementRecord | undefined;
    if (key === null) {
      if (parsed.kind !== 'aspect') {
        throw new ResourceError(
          'VALIDATION_FAILED',
          `A splice without children_key targets an aspect's root list (/{aspect}), not ${uri}`,
          { uri },
        );
      }
      const state = this.aspects.get(parsed.aspect);
      if (!state) throw new ResourceError('NOT_FOUND', `Aspect ${parsed.aspect} not found`, { uri });
      aspect = state.aspect;
      list = state.rootIds;
    } else {
      if (parsed.kind !== 'element') {
        throw new ResourceError(
          'VALIDATION_FAILED',
          `A splice with children_key ${key} targets an element, not ${uri}`,
          {
            uri,
          },
        );
      }
      parent = this.element(uri);
      aspect = this.aspectState(parent.aspect).aspect;
      const children = parent.children[key];
      if (!children) {
        throw new ResourceError(
          'VALIDATION_FAILED',
          `${key} is not a children key of aspect ${aspect.name} (children keys: ${aspect.childrenKeys.join(', ') || 'none'})`,
          { uri, childrenKey: key },
        );
      }
      list = children;
    }
    const { start, end } = spliceBounds(op, list.length);
    const removedRoots = list.slice(start, end).map((id) => `${uri}/${id}`);
    const removed = new Set(removedRoots.flatMap((root) => this.subtree(root)));
    const records = recordsFromDumped(aspect, uri, op.data ?? []);
    assertNoDuplicates(records, (candidate) => this.lut.has(candidate) && !removed.has(candidate));
    const removedDumped = removedRoots.map((root) => this.dump(root));
    const tail = list.length - end;

    for (const gone of removed) this.lut.delete(gone);
    const parentOfTop = parent ? uri : null;
    const topIds = records.filter((record) => record.parentUri === parentOfTop).map((record) => record.id);
    list.splice(start, end - start, ...topIds);
    for (const record of records) this.lut.set(record.uri, record);

    const added = new Set(records.map((record) => record.uri));
    const upserted = records.map((record) => cloneJson(record));
    if (parent) upserted.push(this.copy(uri));
    return {
      inverse: {
        target: 'resource',
        location: { resource_uri: uri, children_key: key },
        start,
        end: start + topIds.length,
        data: removedDumped.length > 0 ? removedDumped : null,
      },
      changed: {
        upserted,
        deleted: [...removed].filter((gone) => !added.has(gone)),
        aspectsChanged: parent === undefined,
        ...(parent ? {} : { roots: { aspect: aspect.name, head: start, tail } }),
      },
    };
  }
}

/**
 * Whether `stored` has exactly the lists of `kept` (which holds a subsequence of each stored list), under the same
 * keys in the same order: the order of the aspect's children keys, which search text, hashes and dumps follow.
 */
function sameChildren(stored: ElementRecord['children'], kept: ElementRecord['children']): boolean {
  const keys = Object.keys(kept);
  const storedKeys = Object.keys(stored);
  return (
    storedKeys.length === keys.length &&
    keys.every((key, i) => storedKeys[i] === key && stored[key]?.length === kept[key]?.length)
  );
}

function assertNoDuplicates(records: readonly ElementRecord[], existing: (uri: string) => boolean): void {
  const seen = new Set<string>();
  for (const record of records) {
    if (seen.has(record.uri) || existing(record.uri)) {
      throw new ResourceError('ALREADY_EXISTS', `Resource ${record.uri} already exists`, {
        uri: record.uri,
        withinBatch: seen.has(record.uri),
      });
    }
    seen.add(record.uri);
  }
}
