/**
 * One `<cite doc_id="…" quote="…">claim</cite>` found in an answer, or a broken attempt at one. Offsets cover the whole
 * element (or the stray tag) in the answer, so a policy can remove or keep it.
 */
export interface CiteTag {
  readonly start: number;
  readonly end: number;
  /** Attribute values, entities decoded; null when the attribute is missing. */
  readonly docId: string | null;
  readonly quote: string | null;
  /** The cited claim between the tags ('' for a self-closing tag or a broken one). */
  readonly inner: string;
  /** Unclosed, stray closing tag, nested, or unreadable attributes. */
  readonly malformed: boolean;
}

const TAG = /<cite\b([^<>]*?)(\/?)>|<\/cite\s*>/giu;
const ATTRIBUTE = /([a-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/giu;
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/giu, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10));
    return ENTITIES[lower] ?? whole;
  });
}

/** The attributes of an opening tag, or null when anything but well-formed attributes is left over. */
function readAttributes(text: string): Map<string, string> | null {
  const attributes = new Map<string, string>();
  const rest = text.replace(ATTRIBUTE, (_whole, name: string, double?: string, single?: string) => {
    attributes.set(name.toLowerCase(), decodeEntities(double ?? single ?? ''));
    return '';
  });
  return rest.trim() === '' ? attributes : null;
}

interface OpenTag {
  readonly start: number;
  readonly innerStart: number;
  readonly attributes: Map<string, string> | null;
}

function cite(open: OpenTag, end: number, inner: string, malformed: boolean): CiteTag {
  const attributes = open.attributes ?? new Map<string, string>();
  return {
    start: open.start,
    end,
    docId: attributes.get('doc_id') ?? null,
    quote: attributes.get('quote') ?? null,
    inner,
    malformed: malformed || open.attributes === null,
  };
}

/**
 * The cite tags of an answer, in order. Tags do not nest: an opening tag before the previous one closed makes the
 * previous one malformed (unclosed), as does the end of the answer; a closing tag with no opening one is malformed.
 */
export function parseCiteTags(answer: string): CiteTag[] {
  const tags: CiteTag[] = [];
  let open: OpenTag | undefined;
  for (const match of answer.matchAll(TAG)) {
    const start = match.index;
    const end = start + match[0].length;
    const isClosing = match[0].startsWith('</');
    if (isClosing) {
      if (open) tags.push(cite(open, end, answer.slice(open.innerStart, start), false));
      else tags.push({ start, end, docId: null, quote: null, inner: '', malformed: true });
      open = undefined;
      continue;
    }
    if (open) tags.push(cite(open, open.innerStart, '', true));
    const attributes = readAttributes(match[1] ?? '');
    const opened: OpenTag = { start, innerStart: end, attributes };
    if (match[2] === '/') {
      tags.push(cite(opened, end, '', false));
      open = undefined;
    } else {
      open = opened;
    }
  }
  if (open) tags.push(cite(open, open.innerStart, '', true));
  return tags;
}
