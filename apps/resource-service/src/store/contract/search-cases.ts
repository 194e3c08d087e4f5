/// <reference types="jest" />
import { InMemoryResourceStore, type SegmentsRequest } from '@novelrag/repository';
import type { ContractContext } from './context';
import { contractEmbedder, NASTY_ID, root, seedCorpus } from './fixtures';

const INJECTIONS = [
  `'`,
  `"`,
  `%`,
  `*`,
  `OR 1=1`,
  `)`,
  `') OR 1=1 --`,
  `余归' OR '1'='1`,
  `"unterminated`,
  `\\`,
  `a:b`,
];

/** Hybrid search (through the store and the repository) and segments (checked against the in-memory reference). */
export function registerSearchCases(ctx: () => ContractContext): void {
  const search = async (text: string, options: { aspect?: string; limit?: number } = {}) => {
    const [vector] = await contractEmbedder().embed([text]);
    return ctx().store.search({
      text,
      vector: vector ?? [],
      limit: options.limit ?? 10,
      ...(options.aspect !== undefined ? { aspect: options.aspect } : {}),
    });
  };
  const uris = (hits: readonly { uri: string }[]) => hits.map((hit) => hit.uri);

  it('ranks the element named exactly 余归 first among ~30 Chinese/English elements', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const hits = await search('余归');
    expect(hits[0]?.uri).toBe('/character/yu_gui');
    expect(uris(hits)).toContain('/location/yu_gui_home');
    const viaRepo = await repo.search('余归', { limit: 5 });
    expect(viaRepo[0]?.uri).toBe('/character/yu_gui');
    expect(viaRepo[0]?.element).toMatchObject({ name: '余归', aspect: 'character' });
  });

  it('ranks exact English ids and names first', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    expect((await search('elena'))[0]?.uri).toBe('/character/elena');
    expect((await search('Azure Sect'))[0]?.uri).toBe('/faction/azure_sect');
    expect((await search('night market'))[0]?.uri).toBe('/location/market');
    expect((await search('林默'))[0]?.uri).toBe('/character/lin_mo');
  });

  it('finds children in the hybrid search', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    expect((await search('石阶'))[0]?.uri).toBe('/outline/chapter_1/s1/s1a');
  });

  it('filters by aspect (including an aspect name that needs escaping)', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const hits = await search('余归', { aspect: 'location' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.uri.startsWith('/location/'))).toBe(true);
    expect(hits[0]?.uri).toBe('/location/yu_gui_home');
    expect(uris(await search('Pat', { aspect: "o'brien" }))).toEqual(["/o'brien/pat"]);
    expect(await search('余归', { aspect: `character' OR '1'='1` })).toEqual([]);
    const viaRepo = await repo.search('elena', { aspect: 'location', limit: 3 });
    expect(viaRepo[0]?.uri).toBe('/location/harbor');
  });

  it('honours the limit, best first', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const hits = await search('Voss', { limit: 3 });
    expect(hits).toHaveLength(3);
    expect(uris(hits).slice(0, 2).sort()).toEqual(['/character/elena', '/character/elena_twin']);
    for (let i = 1; i < hits.length; i++) {
      expect((hits[i - 1] as { score: number }).score).toBeGreaterThanOrEqual(
        (hits[i] as { score: number }).score,
      );
    }
    expect(await search('余归', { limit: 1 })).toHaveLength(1);
  });

  it('treats quotes, wildcards and SQL fragments in the query as plain text', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const all = new Set(repo.snapshot().records.map((record) => record.uri));
    for (const text of INJECTIONS) {
      const hits = await search(text, { limit: 5 });
      expect(hits.length).toBeLessThanOrEqual(5);
      for (const hit of hits) expect(all.has(hit.uri)).toBe(true);
      const filtered = await search(text, { aspect: 'faction', limit: 50 });
      expect(filtered.every((hit) => hit.uri.startsWith('/faction/'))).toBe(true);
    }
    expect((await search(`it's "quoted" 100%`))[0]?.uri).toBe(`/character/${NASTY_ID}`);
    expect((await search(NASTY_ID))[0]?.uri).toBe(`/character/${NASTY_ID}`);
  });

  it('searches the same after a restart', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const before = uris(await search('青云宗', { limit: 3 }));
    const reopened = await ctx().reopenRepo(repo);
    expect(uris(await search('青云宗', { limit: 3 }))).toEqual(before);
    expect((await reopened.search('余归'))[0]?.uri).toBe('/character/yu_gui');
  });

  it('finds newly written and updated elements immediately, and never deleted ones', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    await repo.apply([
      { target: 'resource', location: root('character'), data: [{ id: 'newcomer', name: '新来的剑客' }] },
    ]);
    expect((await search('新来的剑客'))[0]?.uri).toBe('/character/newcomer');
    await repo.apply([{ target: 'property', resource_uri: '/character/su_qing', data: { name: '苏晴雪' } }]);
    expect((await search('苏晴雪'))[0]?.uri).toBe('/character/su_qing');
    const index =
      repo
        .snapshot()
        .aspects.find((aspect) => aspect.name === 'character')
        ?.rootIds.indexOf('yu_gui') ?? -1;
    expect(index).toBeGreaterThanOrEqual(0);
    await repo.apply([{ target: 'resource', location: root('character'), start: index, end: index + 1 }]);
    const after = uris(await search('余归', { limit: 50 }));
    expect(after).not.toContain('/character/yu_gui');
    expect(after).toContain('/location/yu_gui_home');
  });

  it('builds segments like the in-memory reference (excluded properties, excluded and missing uris)', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const reference = new InMemoryResourceStore({ state: await ctx().store.load() });
    const requests: SegmentsRequest[] = [
      {
        segments: [
          { uri: '/' },
          { uri: '/outline', excludedProperties: ['description'] },
          { uri: '/outline/chapter_1', excludedProperties: ['title', 'nope'] },
          { uri: '/outline/chapter_1/s1' },
          { uri: '/outline/chapter_1/s2' },
          { uri: '/character/yu_gui', excludedProperties: ['age', 'bio'] },
          { uri: `/character/${NASTY_ID}` },
          { uri: '/missing' },
          { uri: '/character/nobody' },
          { uri: 'not a uri' },
          { uri: '/character/lin_mo' },
        ],
        excludedUris: ['/outline/chapter_1/s2', '/character/lin_mo', '/faction'],
      },
      { segments: [{ uri: '/faction/azure_sect', excludedProperties: ['chinese'] }, { uri: '/' }] },
      { segments: [] },
    ];
    for (const request of requests) {
      expect(await ctx().store.segments(request)).toEqual(await reference.segments(request));
    }
    const first = await ctx().store.segments(requests[0] as SegmentsRequest);
    expect(first.missing).toEqual(['/missing', '/character/nobody', 'not a uri']);
    const yu = first.segments.find((segment) => segment.uri === '/character/yu_gui');
    expect(yu?.properties).toEqual({ name: '余归' });
    expect(yu?.relationships).toEqual({
      '/faction/azure_sect': ['弟子', 'disciple'],
      '/location/yu_gui_home': ['home'],
    });
    const chapter = first.segments.find((segment) => segment.uri === '/outline/chapter_1');
    expect(chapter?.childIds).toEqual({ scenes: ['s1'] });
    expect(first.segments.find((segment) => segment.uri === '/')?.childIds).toEqual({
      aspects: ['character', 'location', 'outline', "o'brien"],
    });
  });

  it('builds segments after a restart through the repository', async () => {
    const repo = await ctx().openRepo();
    await seedCorpus(repo);
    const reopened = await ctx().reopenRepo(repo);
    const result = await reopened.segments({
      segments: [{ uri: '/outline/chapter_1/s1', excludedProperties: ['title'] }, { uri: '/character/gone' }],
    });
    expect(result).toEqual({
      segments: [
        {
          uri: '/outline/chapter_1/s1',
          kind: 'element',
          properties: {},
          excludedProperties: ['title'],
          childIds: { scenes: ['s1a'] },
          relationships: {},
        },
      ],
      missing: ['/character/gone'],
    });
  });
}
