import { ResourceError } from './errors';

/** The root URI: its children are the aspects. */
export const ROOT_URI = '/';

/** The longest id (or aspect name) accepted, in Unicode code points. */
export const MAX_ID_LENGTH = 128;

/** The longest URI a new element may get: what the bus contracts carry (`MAX_URI_CHARS`, UTF-16 code units). */
export const MAX_URI_LENGTH = 1_024;

/**
 * The deepest nesting of a new element (ids below its aspect). Stories nest a handful of levels; the bound keeps
 * every recursive walk of a subtree (dumps, undo entries, the history document) far from the stack's limit.
 */
export const MAX_DEPTH = 64;

/** A parsed resource URI: `/`, `/{aspect}`, or `/{aspect}/{id}[/{childId}...]` (children keys are not in URIs). */
export type ParsedUri =
  | { readonly kind: 'root'; readonly uri: string }
  | { readonly kind: 'aspect'; readonly uri: string; readonly aspect: string }
  | {
      readonly kind: 'element';
      readonly uri: string;
      readonly aspect: string;
      /** The ids from the root element down to this element (at least one). */
      readonly ids: readonly string[];
    };

// C0 and C1 control characters (incl. newline/tab) never belong in an id.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `id` is not a valid id or aspect name, or null when it is valid. Unicode (e.g. Chinese) ids are valid. */
export function idProblem(id: string): string | null {
  if (id.length === 0) return 'is empty';
  if (id.trim() !== id) return 'has leading or trailing whitespace';
  if (id.includes('/')) return "contains '/'";
  if (id.includes('..')) return "contains '..'";
  if (id === '.') return "is '.'";
  if (CONTROL.test(id)) return 'contains a control character';
  if ([...id].length > MAX_ID_LENGTH) return `is longer than ${MAX_ID_LENGTH} characters`;
  return null;
}

/** Throws INVALID_URI unless `id` is a valid id (or aspect name). */
export function assertValidId(id: string, what = 'id'): void {
  const problem = idProblem(id);
  if (problem)
    throw new ResourceError('INVALID_URI', `Invalid ${what} ${JSON.stringify(id)}: it ${problem}`, { id });
}

/** Parses and validates a URI. Throws INVALID_URI (with the reason) on anything malformed, e.g. `//`, `/a/../b`. */
export function parseUri(uri: string): ParsedUri {
  if (typeof uri !== 'string' || !uri.startsWith('/')) {
    throw new ResourceError('INVALID_URI', `Invalid URI ${JSON.stringify(uri)}: it must start with '/'`, {
      uri,
    });
  }
  if (uri === ROOT_URI) return { kind: 'root', uri };
  const segments = uri.slice(1).split('/');
  for (const segment of segments) {
    const problem = idProblem(segment);
    if (problem) {
      throw new ResourceError(
        'INVALID_URI',
        `Invalid URI ${JSON.stringify(uri)}: segment ${JSON.stringify(segment)} ${problem}`,
        {
          uri,
        },
      );
    }
  }
  const [aspect, ...ids] = segments as [string, ...string[]];
  if (ids.length === 0) return { kind: 'aspect', uri, aspect };
  return { kind: 'element', uri, aspect, ids };
}

/** True when `uri` parses. */
export function isValidUri(uri: string): boolean {
  try {
    parseUri(uri);
    return true;
  } catch {
    return false;
  }
}

/** The structural parent: `/` for an aspect, the aspect URI for a root element, null for `/`. */
export function parentUri(uri: string): string | null {
  const parsed = parseUri(uri);
  if (parsed.kind === 'root') return null;
  const cut = uri.lastIndexOf('/');
  return cut === 0 ? ROOT_URI : uri.slice(0, cut);
}

/**
 * `{parent}/{id}` (`/{id}` under the root), the URI of a new child. Throws INVALID_URI on a bad parent or id, and
 * when the child would be longer than MAX_URI_LENGTH or nested deeper than MAX_DEPTH.
 */
export function childUri(parent: string, id: string): string {
  const parsed = parseUri(parent);
  assertValidId(id);
  const uri = parent === ROOT_URI ? `/${id}` : `${parent}/${id}`;
  if (uri.length > MAX_URI_LENGTH) {
    throw new ResourceError(
      'INVALID_URI',
      `The URI of ${JSON.stringify(id)} under ${parent} would be longer than ${MAX_URI_LENGTH} characters`,
      { uri: parent, id },
    );
  }
  const depth = parsed.kind === 'element' ? parsed.ids.length + 1 : parsed.kind === 'aspect' ? 1 : 0;
  if (depth > MAX_DEPTH) {
    throw new ResourceError(
      'INVALID_URI',
      `Elements nest at most ${MAX_DEPTH} levels deep (under ${parent})`,
      {
        uri: parent,
        id,
      },
    );
  }
  return uri;
}

/** The aspect a URI belongs to, null for `/`. */
export function aspectOf(uri: string): string | null {
  const parsed = parseUri(uri);
  return parsed.kind === 'root' ? null : parsed.aspect;
}

/** The last segment (the element id or the aspect name), null for `/`. */
export function lastSegment(uri: string): string | null {
  const parsed = parseUri(uri);
  if (parsed.kind === 'root') return null;
  return parsed.kind === 'aspect' ? parsed.aspect : (parsed.ids[parsed.ids.length - 1] as string);
}

/** True when `ancestor` is a strict ancestor of `uri` (`/` is the ancestor of every other URI). */
export function isAncestor(ancestor: string, uri: string): boolean {
  if (ancestor === uri) return false;
  if (ancestor === ROOT_URI) return uri.startsWith('/');
  return uri.startsWith(`${ancestor}/`);
}
