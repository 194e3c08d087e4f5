// Search text analysis shared by every store (same analysis at index and query time).
export {
  analyze,
  matchKey,
  mentions,
  nameKeys,
  nameTerms,
  normalise,
  pinyinForms,
  shingles,
  stem,
} from './analyzer';
export { Bm25Index } from './bm25';
export { VectorIndex } from './vector-index';
export {
  documentTerms,
  elementKeys,
  elementNames,
  idWords,
  NAME_TERM_PREFIX,
  nameDependents,
  nameRecord,
  nameRecordOf,
  prefixedTerms,
  SEARCH_FORMAT,
  searchHash,
  searchText,
} from './document';
export type { DocumentTerms, IncomingRelation } from './document';
export { SearchEntries } from './search-entries';
export type { Touched } from './search-entries';
export {
  candidateLimit,
  FUSION_WEIGHTS,
  fuse,
  fuseByKeys,
  fuseWith,
  keysMatch,
  nameMatch,
  queryTerms,
} from './fusion';
export type { ElementKeys, FusionWeights, HybridSides, NameMatch, RecordSource } from './fusion';
