import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../json';
import type { ElementRecord, RecordLookup } from '../model';
import { parseUri } from '../uri';
import { analyze, matchKey, nameKeys, nameTerms, pinyinForms } from './analyzer';

/**
 * What search indexes of an element. `searchText` is readable text (what the embedder receives): the element's
 * names, its property values, each relationship as its labels with the target's name, the children's names and
 * the parent's name; never JSON keys of its own or URIs. The keyword side indexes its analysed terms; the name
 * side indexes only the element's names (their terms and pinyin), where the exact-name boost applies.
 */

/** Version of the text and the analysis: part of the search hash, so a change re-indexes every element. */
export const SEARCH_FORMAT = 2;

/** Property names that hold an element's names (`name`, `aliases`, `title`, `name_en`, `chinese_name`...). */
const NAME_PROPERTY = /^(names?|alias(es)?|nicknames?|titles?|name_[a-z]+|[a-z]+_name)$/i;
const MAX_DEPTH = 4;

function strings(value: JsonValue | undefined, out: string[], depth = 0): void {
  if (depth > MAX_DEPTH || value === undefined || value === null) return;
  if (typeof value === 'string') {
    if (value.trim().length > 0) out.push(value.trim());
  } else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) strings(item, out, depth + 1);
  else for (const [key, item] of Object.entries(value)) strings(`${key}: ${readable(item)}`, out, depth + 1);
}

function readable(value: JsonValue | undefined): string {
  const out: string[] = [];
  strings(value, out, 1);
  return out.join(', ');
}

/** The id as words (`lin_mo` → `lin mo`). */
export function idWords(id: string): string {
  return id.replace(/[_\-.]+/g, ' ').trim();
}

/** The element's names: the values of its name properties, in property order; its id as words when it has none. */
export function elementNames(record: ElementRecord): string[] {
  const names: string[] = [];
  for (const [key, value] of Object.entries(record.properties)) {
    if (NAME_PROPERTY.test(key)) strings(value, names);
  }
  const unique = [...new Set(names)];
  return unique.length > 0 ? unique : [idWords(record.id)];
}

/** The name shown for an element in another element's text. */
function displayName(lookup: RecordLookup, uri: string): string {
  const record = lookup(uri);
  if (record) return elementNames(record)[0] ?? idWords(record.id);
  return idWords(uri.slice(uri.lastIndexOf('/') + 1));
}

/** A relationship pointing at an element: the source's uri and the labels. */
export type IncomingRelation = readonly [source: string, labels: readonly string[]];

/**
 * The readable text of an element (see the module comment), one fact per line; `incoming` relationships (other
 * elements' relationships to this one) read as `labels of source`.
 */
export function searchText(
  record: ElementRecord,
  lookup: RecordLookup,
  incoming: readonly IncomingRelation[] = [],
): string {
  const lines = [elementNames(record).join(' / ')];
  for (const [key, value] of Object.entries(record.properties)) {
    if (NAME_PROPERTY.test(key) && key !== 'title') continue;
    const text = readable(value);
    if (text.length > 0) lines.push(`${key.replace(/_/g, ' ')}: ${text}`);
  }
  for (const [target, labels] of Object.entries(record.relationships)) {
    lines.push(`${labels.join(', ')}: ${displayName(lookup, target)}`);
  }
  for (const [source, labels] of incoming) {
    lines.push(`${labels.join(', ')} of ${displayName(lookup, source)}`);
  }
  for (const [key, ids] of Object.entries(record.children)) {
    if (ids.length === 0) continue;
    lines.push(`${key}: ${ids.map((id) => displayName(lookup, `${record.uri}/${id}`)).join(', ')}`);
  }
  if (record.parentUri) lines.push(`in: ${displayName(lookup, record.parentUri)}`);
  return lines.join('\n');
}

/**
 * sha256 of the format version, the embedding model's id and the search text: a stored vector and index entry are
 * current when it matches (a new format or model re-indexes every element).
 */
export function searchHash(text: string, embedderId = ''): string {
  return createHash('sha256').update(`${SEARCH_FORMAT}\n${embedderId}\n${text}`).digest('hex');
}

/** The uris whose search text shows the name of `record` (its relationship sources are found by the caller). */
export function nameDependents(record: ElementRecord): string[] {
  const out = Object.values(record.children).flatMap((ids) => ids.map((id) => `${record.uri}/${id}`));
  if (record.parentUri) out.push(record.parentUri);
  return out;
}

export interface DocumentTerms {
  /** Terms of the keyword side: the analysed search text and the pinyin of the names. */
  readonly text: string[];
  /** Terms of the name side: the names' terms and pinyin. */
  readonly names: string[];
}

/** The index terms of an element stored with `text` (its `searchText`). */
export function documentTerms(record: ElementRecord, text: string): DocumentTerms {
  const names = elementNames(record);
  return {
    text: [...analyze(text), ...names.flatMap(pinyinForms)],
    names: [...names.flatMap(nameTerms), ...analyze(idWords(record.id))],
  };
}

/** Prefix of the name-side terms where a store keeps both sides in one index (LanceDB, Qdrant's sparse vector). */
export const NAME_TERM_PREFIX = 'n:';

/** Both sides in one term list, name terms prefixed. */
export function prefixedTerms(terms: DocumentTerms): string[] {
  return [...terms.text, ...terms.names.map((term) => `${NAME_TERM_PREFIX}${term}`)];
}

/**
 * The record reduced to what name matching (`elementKeys`, `nameMatch`) reads: its identity and its name properties.
 * Small enough for a store to keep one per element in memory, so that a search need not read whole records.
 */
export function nameRecord(record: ElementRecord): ElementRecord {
  const properties = Object.fromEntries(
    Object.entries(record.properties).filter(([key]) => NAME_PROPERTY.test(key)),
  );
  return {
    id: record.id,
    uri: record.uri,
    aspect: record.aspect,
    parentUri: record.parentUri,
    properties,
    relationships: {},
    children: {},
  };
}

/** `nameRecord` rebuilt from what a store may keep of it instead: the element's uri and its name properties. */
export function nameRecordOf(uri: string, names: JsonObject): ElementRecord {
  const parsed = parseUri(uri);
  if (parsed.kind !== 'element') throw new Error(`${uri} is not an element uri`);
  const id = parsed.ids[parsed.ids.length - 1] as string;
  const parentUri = parsed.ids.length > 1 ? uri.slice(0, uri.length - id.length - 1) : null;
  return { id, uri, aspect: parsed.aspect, parentUri, properties: names, relationships: {}, children: {} };
}

/** The match keys an element is found by exactly (written names and id) and by mention (those and pinyin). */
export function elementKeys(record: ElementRecord): { exact: Set<string>; all: Set<string> } {
  const names = elementNames(record);
  const exact = new Set([...names.map(matchKey), matchKey(idWords(record.id))].filter((k) => k.length > 0));
  const all = new Set([...exact, ...names.flatMap(nameKeys)]);
  return { exact, all };
}
