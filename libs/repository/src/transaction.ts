import type { AspectsDelta, RootsSpan } from './aspects-delta';
import type { ReversibleAction } from './operations';
import type { TreeChanges } from './tree-types';
import type { ResourceTree } from './tree';

/**
 * One write's journal over the tree: runs actions, remembers their inverses and every URI they touched, and can
 * roll the tree back (inverses, newest first) when a later step or the persistence fails.
 */
export class TreeTransaction {
  readonly inverses: ReversibleAction[] = [];
  /** Element URIs whose record changed (persist the current state or delete when gone). */
  readonly touched = new Set<string>();
  /** Every URI the write concerns, for the change event (elements, aspects, splice/relationship subjects). */
  readonly subjects = new Set<string>();
  aspectsChanged = false;
  /** The aspects the write created ('put') and, for the others, the part of each spliced root list it kept. */
  private readonly aspectsTouched = new Map<string, RootsSpan | 'put'>();

  constructor(private readonly tree: ResourceTree) {}

  /** Runs an action on the tree and returns its inverse. Throws like `ResourceTree.execute` (tree unchanged then). */
  execute(action: ReversibleAction): ReversibleAction {
    const { inverse, changed } = this.tree.execute(action);
    this.inverses.push(inverse);
    for (const record of changed.upserted) this.touched.add(record.uri);
    for (const uri of changed.deleted) this.touched.add(uri);
    this.aspectsChanged ||= changed.aspectsChanged;
    if (action.method === 'add_aspect') this.aspectsTouched.set(action.name, 'put');
    if (changed.roots) this.keepSpan(changed.roots);
    this.subjects.add(subjectOf(action));
    for (const uri of this.touched) this.subjects.add(uri);
    return inverse;
  }

  /** What the write changed in the aspect list (see `AspectsDelta`), null when nothing. */
  aspectsDelta(): AspectsDelta | null {
    return this.aspectsChanged ? this.tree.aspectsDelta(this.aspectsTouched) : null;
  }

  /** Undoes everything this transaction did, newest first. */
  rollback(): void {
    for (const inverse of [...this.inverses].reverse()) this.tree.execute(inverse);
    this.inverses.length = 0;
  }

  /**
   * Narrows the kept span of a root list to a splice's: ids before the splice's start and after its end are those
   * of the list before the write, as long as every earlier splice left them alone too.
   */
  private keepSpan({ aspect, head, tail }: NonNullable<TreeChanges['roots']>): void {
    const known = this.aspectsTouched.get(aspect);
    if (known === 'put') return;
    this.aspectsTouched.set(
      aspect,
      known ? { head: Math.min(known.head, head), tail: Math.min(known.tail, tail) } : { head, tail },
    );
  }
}

function subjectOf(action: ReversibleAction): string {
  switch (action.method) {
    case 'apply':
      return action.op.target === 'property' ? action.op.resource_uri : action.op.location.resource_uri;
    case 'update_relationships':
      return action.source_uri;
    case 'add_aspect':
    case 'remove_aspect':
      return `/${action.name}`;
  }
}
