// The raw LanceDB baseline of the resource benchmark: the two kinds of query the store sends (a filtered
// nearest-neighbour query and a full-text match), sent straight to the same table, with the same indexes, data and
// candidate count, in the same process and run, without the store's analysis, fusion and record decoding.
import { createRequire } from 'node:module';
import path from 'node:path';
import { summarize, timed } from './report.mjs';

const require = createRequire(import.meta.url);

/** `{ann, fts}` latency summaries (ms) of `queries` (the search workload) against the store's table in `dir`. */
export async function rawLanceDb({ root, dir, queries, embedder, queryTerms, candidates, warmup }) {
  const lancedb = require(path.join(root, 'node_modules/@lancedb/lancedb'));
  const db = await lancedb.connect(path.join(dir, 'lance'));
  const table = await db.openTable('elements');
  const ann = [];
  const fts = [];
  try {
    for (const [index, query] of queries.entries()) {
      // Generated aspect names are plain identifiers: no quoting to escape.
      const filter = query.aspect ? `aspect = '${query.aspect}'` : undefined;
      const [vector] = await embedder.embed([query.text]);
      const near = table.query().nearestTo(vector).distanceType('cosine').select(['uri']).limit(candidates);
      if (filter) near.where(filter);
      const nearMs = (await timed(() => near.toArray())).ms;
      const terms = queryTerms(query.text).text;
      let textMs = null;
      if (terms.length > 0) {
        const match = new lancedb.MatchQuery(terms.join(' '), 'text');
        const text = table.query().fullTextSearch(match).select(['uri']).limit(candidates);
        if (filter) text.where(filter);
        textMs = (await timed(() => text.toArray())).ms;
      }
      if (index < warmup) continue;
      ann.push(nearMs);
      if (textMs !== null) fts.push(textMs);
    }
  } finally {
    table.close();
    db.close();
  }
  return { ann: summarize(ann), fts: summarize(fts) };
}
