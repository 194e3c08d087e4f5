/**
 * The comparable form of a text: NFKC (full-width letters, digits and ASCII punctuation become their plain forms),
 * lower case, and no whitespace, punctuation or symbols at all (line breaks, full-width and CJK punctuation such as
 * `，。、「」“”` included). What is left are letters, marks and digits, so a quote matches its source however the
 * model re-spaced, re-punctuated or re-wrapped it, in Chinese as in English, but not if a single word differs.
 */
export function normalizeForQuote(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]+/gu, '');
}

/** Quotes shorter than this (after normalisation, in code points) prove nothing and are never verified. */
export const MIN_QUOTE_LENGTH = 3;

/** Whether `quote` appears in `source` after normalisation (false for a quote too short to prove anything). */
export function quoteAppearsIn(quote: string, source: string): boolean {
  const needle = normalizeForQuote(quote);
  if (Array.from(needle).length < MIN_QUOTE_LENGTH) return false;
  return normalizeForQuote(source).includes(needle);
}
