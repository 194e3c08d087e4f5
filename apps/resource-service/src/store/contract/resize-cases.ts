/// <reference types="jest" />
import { LocalEmbedder, ResourceRepository, ThreadMemory } from '@novelrag/repository';
import type { ContractContext } from './context';
import { contractEmbedder, seedCorpus, STORE_CONTRACT_DIMENSIONS } from './fixtures';

const OTHER_DIMENSIONS = 16;
const QUERIES = ['余归', 'elena', 'Azure Sect', 'night market', '林默', '石阶'];

/**
 * The embedding model changes to one of another vector size: the store opens the old data for the new size and the
 * repository re-embeds every element (in batches, with progress), so search finds what it found before and the
 * vectors of both sizes never meet.
 */
export function registerResizeCases(ctx: () => ContractContext): void {
  const top = async (repo: ResourceRepository) => {
    const firsts: Record<string, string | undefined> = {};
    for (const query of QUERIES) firsts[query] = (await repo.search(query, { limit: 5 }))[0]?.uri;
    return firsts;
  };

  it('re-embeds every element for an embedder of another size and finds the same elements', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const memory = new ThreadMemory(ctx().store.memory, contractEmbedder());
    await memory.storeInteraction({
      threadId: 't-z',
      goalId: 'g-1',
      question: 'Where is the Azure Sect?',
      answer: 'On the snowy peak in the north.',
    });
    const before = await top(repo);
    const elements = repo.snapshot().records.length;
    expect(Object.values(before).every((uri) => uri !== undefined)).toBe(true);

    await ctx().restartWithDimensions(OTHER_DIMENSIONS, repo);
    const embedder = new LocalEmbedder(OTHER_DIMENSIONS);
    const progress: string[] = [];
    const resized = await ResourceRepository.open(ctx().store, embedder, {
      log: (message) => progress.push(message),
      reembedBatch: 7,
    });
    expect(progress[0]).toBe(
      `re-embedding ${elements} elements whose search text or embedding model changed`,
    );
    expect(progress).toContain(`re-embedded ${elements}/${elements} elements`);
    expect(progress.length).toBe(1 + Math.ceil(elements / 7));
    expect(await top(resized)).toEqual(before);
    // The vector side works at the new size: a query vector of it finds the element without any keyword match.
    const [vector] = await embedder.embed(['余归']);
    const hits = await ctx().store.search({ text: '', vector: vector ?? [], limit: 50 });
    expect(hits.map((hit) => hit.uri)).toContain('/character/yu_gui');
    const again = new ThreadMemory(ctx().store.memory, embedder);
    const found = await again.retrieveRelevant('Azure Sect', 't-z', 5);
    expect(found.map((item) => item.text)).toEqual([
      'Q: Where is the Azure Sect?\nA: On the snowy peak in the north.',
    ]);

    // Opened again at the new size: nothing left to re-embed.
    await ctx().restartWithDimensions(OTHER_DIMENSIONS, resized);
    const quiet: string[] = [];
    const reopened = await ResourceRepository.open(ctx().store, embedder, { log: (m) => quiet.push(m) });
    expect(quiet).toEqual([]);
    expect(await top(reopened)).toEqual(before);

    // And back to the first size.
    await ctx().restartWithDimensions(STORE_CONTRACT_DIMENSIONS, reopened);
    const back = await ResourceRepository.open(ctx().store, contractEmbedder());
    expect(await top(back)).toEqual(before);
    await back.close();
  });
}
