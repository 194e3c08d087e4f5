/// <reference types="jest" />
import type { ContractContext } from './context';
import { contractEmbedder, root, seedCorpus } from './fixtures';

/**
 * The shared text analysis and what is indexed, the same in every store: Chinese questions (segmented, particles
 * dropped), English stop words and punctuation, full-width forms, pinyin names, names and aliases as their own field
 * (the exact boost only there), relationships at both ends with the other end's name, children in the parent's
 * context, and a rename re-indexing the elements that show the name.
 */
export function registerAnalysisCases(ctx: () => ContractContext): void {
  const top = async (text: string, limit = 3): Promise<string[]> => {
    const [vector] = await contractEmbedder().embed([text]);
    const hits = await ctx().store.search({ text, vector: vector ?? [], limit });
    return hits.map((hit) => hit.uri);
  };

  it('answers a Chinese question from either end of a relationship', async () => {
    await seedCorpus(await ctx().openRepo());
    const hits = await top('余归的师兄是谁？', 5);
    expect(hits).toContain('/character/lin_mo');
    expect(hits).toContain('/character/yu_gui');
  });

  it('drops English stop words and punctuation, and reads full-width text as plain', async () => {
    await seedCorpus(await ctx().openRepo());
    expect((await top('Who is the Shadow?'))[0]).toBe('/character/shadow');
    expect((await top('ＥＬＥＮＡ　ＶＯＳＳ'))[0]).toBe('/character/elena');
    expect(await top('Who is the disciple of the Azure Sect?')).toContain('/character/yu_gui');
  });

  it('finds a Chinese name by its pinyin', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    await repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'hero', name: '沈听澜' }] },
    ]);
    expect((await top('Who is Shen Tinglan?'))[0]).toBe('/character/hero');
    expect((await top('shen ting lan'))[0]).toBe('/character/hero');
    expect(await top("Who is Yu Gui's elder brother?")).toContain('/character/yu_gui');
  });

  it('boosts an exact name or alias, not any property with that value', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    await repo.apply([
      {
        target: 'resource',
        location: root('location'),
        data: [{ id: 'tea_house', name: '听雨楼', keeper: '余贵', note: '余贵 余贵' }],
      },
      {
        target: 'resource',
        location: root('character'),
        data: [{ id: 'keeper', name: '余贵', aliases: ['老余'] }],
      },
    ]);
    expect((await top('余贵'))[0]).toBe('/character/keeper');
    expect((await top('老余'))[0]).toBe('/character/keeper');
  });

  it("indexes children's names in the parent's context", async () => {
    await seedCorpus(await ctx().openRepo());
    const hits = await top('拜师');
    expect(hits[0]).toBe('/outline/chapter_1/s2');
    expect(hits).toContain('/outline/chapter_1');
  });

  it('re-indexes the elements that show a renamed element', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    await repo.apply([{ target: 'property', resource_uri: '/character/lin_mo', data: { name: '林墨' } }]);
    const hits = await top('林墨 师兄', 5);
    expect(hits).toContain('/character/lin_mo');
    expect(hits).toContain('/character/yu_gui');
  });
}
