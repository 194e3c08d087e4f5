import { ModelOutputError } from '../errors/model-errors';
import { type CiteTag, parseCiteTags } from './cite-tags';
import { MIN_QUOTE_LENGTH, normalizeForQuote } from './quote-match';

/** A document the answer could cite: the id it was shown under, its resource URI and the text the model saw. */
export interface SourceDocument {
  readonly docId: string;
  readonly uri: string;
  readonly text: string;
}

/** Why a citation is not verified. */
export type CitationProblem =
  'malformed' | 'unknown_document' | 'quote_too_short' | 'quote_in_other_document' | 'quote_not_found';

/** One citation of an answer. `verified` is true only when the quote was found in the document the tag names. */
export interface Citation {
  readonly docId: string;
  /** The cited document's URI; null when the id names no document that was shown. */
  readonly uri: string | null;
  readonly quote: string;
  readonly verified: boolean;
  /** Set exactly when `verified` is false. */
  readonly problem?: CitationProblem;
}

/**
 * What happens to an answer with unverified citations: `flag` keeps the tags and marks the citations unverified;
 * `strip` also removes the unverified tags from the answer, keeping the claim text between them; `fail` rejects the
 * answer with `ModelOutputError` (MODEL_OUTPUT_INVALID).
 */
export type UnverifiedCitationPolicy = 'strip' | 'fail' | 'flag';
export const UNVERIFIED_CITATION_POLICIES: readonly UnverifiedCitationPolicy[] = ['strip', 'fail', 'flag'];

export interface VerifiedAnswer {
  /** The answer, with unverified tags removed under `strip`, else as written. */
  readonly answer: string;
  /** Every citation in answer order, verified or not (stripped ones included, so they can be reported). */
  readonly citations: readonly Citation[];
  readonly unverified: number;
}

function check(
  tag: CiteTag,
  byId: ReadonlyMap<string, SourceDocument>,
  normalized: Map<string, string>,
): Citation {
  const docId = tag.docId ?? '';
  const quote = tag.quote ?? '';
  const document = byId.get(docId);
  const base = { docId, uri: document?.uri ?? null, quote };
  const textOf = (d: SourceDocument) => {
    let text = normalized.get(d.docId);
    if (text === undefined) normalized.set(d.docId, (text = normalizeForQuote(d.text)));
    return text;
  };
  if (tag.malformed || tag.docId === null || tag.quote === null) {
    return { ...base, verified: false, problem: 'malformed' };
  }
  const needle = normalizeForQuote(quote);
  if (Array.from(needle).length < MIN_QUOTE_LENGTH)
    return { ...base, verified: false, problem: 'quote_too_short' };
  if (!document) return { ...base, verified: false, problem: 'unknown_document' };
  if (textOf(document).includes(needle)) return { ...base, verified: true };
  const elsewhere = [...byId.values()].some((d) => d !== document && textOf(d).includes(needle));
  return { ...base, verified: false, problem: elsewhere ? 'quote_in_other_document' : 'quote_not_found' };
}

/** The answer without the given tags; each removed element leaves its claim text. */
function strip(answer: string, tags: readonly CiteTag[]): string {
  let out = '';
  let at = 0;
  for (const tag of tags) {
    out += answer.slice(at, tag.start) + tag.inner;
    at = tag.end;
  }
  return out + answer.slice(at);
}

/**
 * Checks every `<cite doc_id="…" quote="…">…</cite>` of an answer against the documents it was given: a citation is
 * verified only when its quote (after the normalisation of `normalizeForQuote`) appears in the document its
 * `doc_id` names. Malformed tags, unknown ids, quotes too short to prove anything, and quotes found only in another
 * document are never verified. Then applies `policy` to the unverified ones.
 *
 * Throws `ModelOutputError` under `fail` when any citation is unverified; its issues name the citation's position,
 * the problem and, for a known document, its id (never the quote or an id the model made up).
 */
export function verifyCitations(
  answer: string,
  documents: readonly SourceDocument[],
  policy: UnverifiedCitationPolicy,
): VerifiedAnswer {
  const byId = new Map(documents.map((d) => [d.docId, d]));
  const normalized = new Map<string, string>();
  const tags = parseCiteTags(answer);
  const citations = tags.map((tag) => check(tag, byId, normalized));
  const unverifiedTags = tags.filter((_tag, i) => citations[i]?.verified === false);
  const unverified = unverifiedTags.length;
  if (unverified > 0 && policy === 'fail') {
    throw new ModelOutputError({
      issues: citations.flatMap((c, i) =>
        c.verified
          ? []
          : [
              {
                path: `citations.${i}`,
                message: `${c.problem ?? 'unverified'}${c.uri === null ? '' : ` (doc_id ${c.docId})`}`,
              },
            ],
      ),
      rawOutputLength: answer.length,
      attempts: 1,
      purpose: 'answer',
      reason: 'unverified citations',
    });
  }
  return { answer: policy === 'strip' ? strip(answer, unverifiedTags) : answer, citations, unverified };
}
