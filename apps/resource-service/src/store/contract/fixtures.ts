import {
  type AspectRecord,
  type ElementRecord,
  LocalEmbedder,
  SearchEntries,
  type ResourceRepository,
  type StoreState,
  type UpsertItem,
} from '@novelrag/repository';

/** Every store under the contract is created with this vector size (the suite's embedder produces it). */
export const STORE_CONTRACT_DIMENSIONS = 32;

export const contractEmbedder = (): LocalEmbedder => new LocalEmbedder(STORE_CONTRACT_DIMENSIONS);

/** A flat record as the tree would produce it (no children keys unless given). */
export function makeRecord(
  uri: string,
  properties: ElementRecord['properties'],
  extra: Partial<Pick<ElementRecord, 'relationships' | 'children' | 'parentUri'>> = {},
): ElementRecord {
  const segments = uri.slice(1).split('/');
  const aspect = segments[0] ?? '';
  const id = segments[segments.length - 1] ?? '';
  const parentUri = segments.length > 2 ? `/${segments.slice(0, -1).join('/')}` : null;
  return {
    id,
    uri,
    aspect,
    parentUri: extra.parentUri ?? parentUri,
    relationships: extra.relationships ?? {},
    properties,
    children: extra.children ?? {},
  };
}

/** The search text and hash of records as the repository computes them (neighbours among `records` only). */
export function searchEntry(record: ElementRecord, records: readonly ElementRecord[] = [record]) {
  const lookup = (uri: string) => records.find((candidate) => candidate.uri === uri);
  return new SearchEntries(records, contractEmbedder().id).entryOf(record, lookup);
}

/** An upsert item with the real hash/text (no neighbours) and the contract embedder's vector (or null). */
export function makeItem(
  record: ElementRecord,
  vector: number[] | null = contractEmbedder().embedOne(searchEntry(record).text),
): UpsertItem {
  const { text, hash } = searchEntry(record);
  return { record, hash, text, vector };
}

export function makeAspect(name: string, rootIds: string[], childrenKeys: string[] = []): AspectRecord {
  return {
    name,
    description: `${name} things`,
    childrenKeys,
    metadata: { note: `meta of ${name}` },
    rootIds,
  };
}

const byUri = (a: { record: ElementRecord }, b: { record: ElementRecord }) =>
  a.record.uri < b.record.uri ? -1 : a.record.uri > b.record.uri ? 1 : 0;

/** A store state with records sorted by uri: the port promises no record order. */
export function normalised(state: StoreState): StoreState {
  return { ...state, records: [...state.records].sort(byUri) };
}

export const root = (aspect: string) => ({ resource_uri: `/${aspect}`, children_key: null });

/** An id full of characters that break naive SQL/filter/query building. */
export const NASTY_ID = `it's "quoted" 100% (x) OR 1=1`;

/**
 * ~30 elements in Chinese and English across four aspects (one with children, one whose name has a quote), built
 * through the repository so hashes, texts and vectors are the real ones.
 */
export async function seedCorpus(repo: ResourceRepository): Promise<void> {
  await repo.addAspect('character', { description: 'people', children_keys: [] });
  await repo.addAspect('location', { description: 'places' });
  await repo.addAspect('faction', { description: 'groups' });
  await repo.addAspect('outline', { description: 'plot', children_keys: ['scenes'] });
  await repo.addAspect("o'brien", { description: 'an aspect whose name needs escaping' });
  const characters = [
    { id: 'yu_gui', name: '余归', age: 17, bio: '青云宗的弟子，性格沉稳' },
    { id: 'yu_mother', name: '余归的母亲', bio: '一位隐居的医者' },
    { id: 'lin_mo', name: '林默', bio: '余归的师兄，剑术高超' },
    { id: 'su_qing', name: '苏青', bio: '商会的继承人' },
    { id: 'gui_yu', name: '归雨', bio: '名字与余归相近的陌生人' },
    { id: 'elena', name: 'Elena Voss', bio: 'A cartographer from the northern coast' },
    { id: 'elena_twin', name: 'Mira Voss', bio: 'Twin sister of elena, a sailor' },
    { id: 'marcus', name: 'Marcus Hale', bio: 'Captain of the guard who distrusts elena' },
    { id: 'old_wang', name: '老王', bio: 'Innkeeper who speaks both languages' },
    { id: 'shadow', name: 'The Shadow', bio: 'Nobody knows his real name' },
    { id: NASTY_ID, name: `it's "quoted" 100%`, bio: 'a name with quotes and percent signs' },
    { id: 'percent', name: '100% pure', bio: 'wildcards * and % everywhere' },
  ];
  const locations = [
    { id: 'yu_gui_home', name: '余归故居', bio: '余归长大的地方' },
    { id: 'azure_peak', name: '青云峰', bio: '青云宗所在的山峰' },
    { id: 'guixu', name: '归墟', bio: '传说中万水归去之处' },
    { id: 'harbor', name: 'Northern Harbor', bio: 'Where elena keeps her maps' },
    { id: 'market', name: 'Night Market', bio: 'Busy streets full of lanterns' },
    { id: 'yuhang', name: '余杭', bio: '江南的一座城' },
  ];
  const factions = [
    { id: 'azure_sect', name: 'Azure Sect', chinese: '青云宗', bio: 'A sect of sword cultivators' },
    { id: 'merchant_guild', name: 'Merchant Guild', bio: '苏青家族掌控的商会' },
    { id: 'night_watch', name: 'Night Watch', bio: 'Guards led by Marcus' },
  ];
  await repo.apply([
    { target: 'resource', location: root('character'), data: characters },
    { target: 'resource', location: root('location'), data: locations },
    { target: 'resource', location: root('faction'), data: factions },
    {
      target: 'resource',
      location: root('outline'),
      data: [
        {
          id: 'chapter_1',
          title: '初入青云',
          summary: '余归拜入青云宗',
          scenes: [
            { id: 's1', title: '山门', scenes: [{ id: 's1a', title: '石阶', mood: 'tense' }] },
            { id: 's2', title: '拜师', mood: 'solemn' },
          ],
        },
        { id: 'chapter_2', title: 'The Harbor', summary: 'Elena meets Marcus' },
      ],
    },
    { target: 'resource', location: root("o'brien"), data: [{ id: 'pat', name: "Pat O'Brien" }] },
  ]);
  await repo.updateRelationships('/character/yu_gui', '/faction/azure_sect', ['弟子', 'disciple']);
  await repo.updateRelationships('/character/yu_gui', '/character/lin_mo', ['师兄']);
  await repo.updateRelationships('/character/yu_gui', '/location/yu_gui_home', ['home']);
}
