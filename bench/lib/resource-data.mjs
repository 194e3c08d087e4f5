// Deterministic synthetic knowledge base for the resource-service benchmark: three aspects (character, location
// with nested sublocations, faction with nested branches), Chinese and English names (globally unique, so an
// exact-name query has exactly one right answer), relationships to earlier elements, and the search/segment
// workloads drawn from the same data. Same seed → same data, queries and segment requests.

/** mulberry32: tiny seeded PRNG (uniform in [0, 1)). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (r, list) => list[Math.floor(r() * list.length)];
const chance = (r, p) => r() < p;
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

export const ASPECTS = {
  character: { description: 'People of the story', children_keys: [] },
  location: { description: 'Places, with their sublocations', children_keys: ['sublocations'] },
  faction: { description: 'Groups and organisations, with their branches', children_keys: ['branches'] },
};

const ZH_SURNAMES = [
  ...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤',
];
const ZH_DOUBLE_SURNAMES = ['欧阳', '司马', '上官', '诸葛', '东方', '慕容', '令狐', '皇甫', '独孤', '南宫'];
const ZH_GIVEN = [
  ...'归云风雪月星辰晨曦明轩宇浩然子墨言安若溪清远山川河海林森柏松竹梅兰菊玉珠瑶琪琳婉静宁心怡悦欣嘉佳慧敏捷飞鹏鸿雁燕鹤凌霄天青玄白素红丹霞彩虹虹岚峰岩石磊铭诚信义仁礼智勇毅刚强文武英杰俊逸潇洒',
];
const ZH_PLACE_A = [...'青石白云黑水赤霞紫竹金沙银月寒铁落雁栖凤卧龙听涛望海临江镇南定北安西'];
const ZH_PLACE_SUFFIX = ['镇', '城', '山', '谷', '湖', '寺', '关', '村', '岭', '渡', '峡', '原'];
const ZH_FACTION_SUFFIX = ['门', '帮', '派', '宗', '会', '阁', '盟', '堂', '教', '庄'];
const EN_SYLLABLES = [
  'ka',
  'el',
  'or',
  'van',
  'thor',
  'wick',
  'ash',
  'ford',
  'mer',
  'lin',
  'dra',
  'ven',
  'sil',
  'mar',
  'ros',
  'tal',
  'ien',
  'bry',
  'cor',
  'dun',
  'ela',
  'fen',
  'gar',
  'hal',
  'is',
  'jor',
  'kel',
  'lor',
  'mor',
  'nor',
  'ol',
  'pel',
  'quin',
  'ra',
  'sar',
  'tor',
  'ul',
  'vel',
  'wyn',
  'zor',
];
const EN_PLACE_SUFFIX = [
  'Keep',
  'Vale',
  'Harbor',
  'Pass',
  'Ford',
  'Hollow',
  'Reach',
  'Spire',
  'Marsh',
  'Crossing',
];
const EN_FACTION_SUFFIX = [
  'Guild',
  'Order',
  'Company',
  'Circle',
  'Brotherhood',
  'Syndicate',
  'Watch',
  'Covenant',
];
const ZH_ROLES = ['剑客', '商人', '书生', '医者', '刺客', '掌门', '捕快', '乐师', '铁匠', '道士'];
const EN_ROLES = [
  'swordsman',
  'merchant',
  'scholar',
  'healer',
  'assassin',
  'captain',
  'smuggler',
  'bard',
  'blacksmith',
  'priest',
];
const ZH_TRAITS = [
  '沉默寡言',
  '心思缜密',
  '豪爽仗义',
  '贪财好色',
  '忠心耿耿',
  '多疑善变',
  '温文尔雅',
  '脾气暴躁',
];
const EN_TRAITS = [
  'taciturn',
  'meticulous',
  'generous',
  'greedy',
  'loyal',
  'suspicious',
  'gentle',
  'short-tempered',
];
const ZH_PHRASES = [
  '自幼在山中习武',
  '曾在京城做过生意',
  '身负血海深仇',
  '一心寻找失散的亲人',
  '隐居多年不问世事',
  '与朝廷素有往来',
  '精通医术与毒术',
  '常年漂泊江湖',
];
const EN_PHRASES = [
  'grew up in the northern mountains',
  'once traded spices along the river',
  'carries an old debt of blood',
  'searches for a lost sibling',
  'lived in hiding for years',
  'keeps close ties with the crown',
  'knows both medicine and poison',
  'has wandered the roads since youth',
];
const CLIMATES = ['temperate', 'arid', 'humid', 'cold', 'alpine', '多雨', '干燥', '寒冷'];
const ALIGNMENTS = ['lawful', 'neutral', 'chaotic', '正道', '中立', '邪道'];

/** A name generator that never repeats a name (retries on collision, then numbers it). */
function nameMaker(r) {
  const used = new Set();
  const unique = (make) => {
    for (let i = 0; i < 50; i++) {
      const name = make();
      if (!used.has(name)) {
        used.add(name);
        return name;
      }
    }
    const name = `${make()}${used.size}`;
    used.add(name);
    return name;
  };
  const cap = (s) => s[0].toUpperCase() + s.slice(1);
  const word = () => cap(Array.from({ length: int(r, 2, 3) }, () => pick(r, EN_SYLLABLES)).join(''));
  const zhSurname = () => (chance(r, 0.08) ? pick(r, ZH_DOUBLE_SURNAMES) : pick(r, ZH_SURNAMES));
  const zhGiven = () => (chance(r, 0.25) ? pick(r, ZH_GIVEN) : pick(r, ZH_GIVEN) + pick(r, ZH_GIVEN));
  return {
    character: (zh) => unique(() => (zh ? zhSurname() + zhGiven() : `${word()} ${word()}`)),
    location: (zh) =>
      unique(() =>
        zh
          ? pick(r, ZH_PLACE_A) + pick(r, ZH_PLACE_A) + pick(r, ZH_GIVEN) + pick(r, ZH_PLACE_SUFFIX)
          : `${word()} ${pick(r, EN_PLACE_SUFFIX)}`,
      ),
    faction: (zh) =>
      unique(() =>
        zh
          ? pick(r, ZH_PLACE_A) + pick(r, ZH_GIVEN) + pick(r, ZH_FACTION_SUFFIX)
          : `The ${word()} ${pick(r, EN_FACTION_SUFFIX)}`,
      ),
  };
}

/**
 * `count` elements in total (nested children included), as root DumpedElements per aspect in insertion order.
 * Returns `{roots: [{aspect, element, size}], named: [{uri, name, aspect, zh}], uris: [...], byAspect}`.
 */
export function generateDataset(count, seed = 42) {
  const r = rng(seed);
  const names = nameMaker(r);
  const roots = [];
  const named = [];
  const uris = [];
  const byAspect = { character: [], location: [], faction: [] };
  let total = 0;
  let serial = 0;
  const nextId = (prefix) => `${prefix}_${(serial++).toString(36).padStart(5, '0')}`;
  const describe = (zh) =>
    zh
      ? `${pick(r, ZH_PHRASES)}，${pick(r, ZH_PHRASES)}。`
      : `${cap1(pick(r, EN_PHRASES))}; ${pick(r, EN_PHRASES)}.`;
  const relate = (zh) => {
    const rel = {};
    if (byAspect.faction.length > 0 && chance(r, 0.6))
      rel[pick(r, byAspect.faction)] = [zh ? '成员' : 'member of'];
    if (byAspect.character.length > 0 && chance(r, 0.4)) {
      rel[pick(r, byAspect.character)] = [
        zh ? pick(r, ['宿敌', '挚友', '师徒']) : pick(r, ['rival of', 'friend of', 'mentor of']),
      ];
    }
    return rel;
  };
  const element = (aspect, uri, id, zh, properties, relationships) => {
    const name = names[aspect](zh);
    named.push({ uri, name, aspect, zh });
    uris.push(uri);
    total += 1;
    return {
      id,
      ...(relationships && Object.keys(relationships).length > 0 ? { relationships } : {}),
      name,
      ...properties,
    };
  };
  while (total < count) {
    const roll = r();
    const zh = chance(r, 0.5);
    if (roll < 0.5) {
      const id = nextId('char');
      const uri = `/character/${id}`;
      const props = {
        age: int(r, 12, 90),
        role: zh ? pick(r, ZH_ROLES) : pick(r, EN_ROLES),
        traits: [pick(r, zh ? ZH_TRAITS : EN_TRAITS), pick(r, zh ? ZH_TRAITS : EN_TRAITS)],
        description: describe(zh),
      };
      roots.push({
        aspect: 'character',
        element: element('character', uri, id, zh, props, relate(zh)),
        size: 1,
      });
      byAspect.character.push(uri);
    } else if (roll < 0.8) {
      const id = nextId('loc');
      const uri = `/location/${id}`;
      const root = element('location', uri, id, zh, {
        climate: pick(r, CLIMATES),
        description: describe(zh),
      });
      const subs = Math.min(int(r, 0, 3), count - total);
      root.sublocations = Array.from({ length: subs }, () => {
        const subId = nextId('sub');
        return element('location', `${uri}/${subId}`, subId, chance(r, 0.5), { description: describe(zh) });
      });
      roots.push({ aspect: 'location', element: root, size: 1 + subs });
      byAspect.location.push(uri);
    } else {
      const id = nextId('fac');
      const uri = `/faction/${id}`;
      const root = element('faction', uri, id, zh, {
        alignment: pick(r, ALIGNMENTS),
        founded: int(r, 1, 1200),
        description: describe(zh),
      });
      const branches = Math.min(int(r, 0, 2), count - total);
      root.branches = Array.from({ length: branches }, () => {
        const branchId = nextId('branch');
        return element('faction', `${uri}/${branchId}`, branchId, zh, { description: describe(zh) });
      });
      roots.push({ aspect: 'faction', element: root, size: 1 + branches });
      byAspect.faction.push(uri);
    }
  }
  return { roots, named, uris, byAspect, total };
}

const cap1 = (s) => s[0].toUpperCase() + s.slice(1);

/**
 * `n` search queries cycling through kinds: exact Chinese name, exact English name, partial (a name fragment or
 * a role/description word), and aspect-filtered (exact name or a word, limited to one aspect). Exact kinds carry
 * the `expected` uri used for the hit-quality figure.
 */
export function searchWorkload(dataset, n, seed = 7) {
  const r = rng(seed);
  const zh = dataset.named.filter((item) => item.zh);
  const en = dataset.named.filter((item) => !item.zh);
  const fragment = () => {
    if (chance(r, 0.5))
      return pick(r, [...ZH_ROLES, ...EN_ROLES, ...EN_TRAITS, '习武', 'mountains', 'poison']);
    const item = pick(r, dataset.named);
    if (item.zh) return [...item.name].slice(1, 3).join('') || item.name;
    return item.name.replace(/^The /, '').split(' ')[0];
  };
  const queries = [];
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0: {
        const item = pick(r, zh);
        queries.push({ kind: 'exact_zh', text: item.name, expected: item.uri });
        break;
      }
      case 1: {
        const item = pick(r, en);
        queries.push({ kind: 'exact_en', text: item.name, expected: item.uri });
        break;
      }
      case 2:
        queries.push({ kind: 'partial', text: fragment() });
        break;
      default: {
        const item = pick(r, dataset.named);
        queries.push(
          chance(r, 0.5)
            ? { kind: 'aspect_exact', text: item.name, aspect: item.aspect, expected: item.uri }
            : { kind: 'aspect_partial', text: fragment(), aspect: item.aspect },
        );
      }
    }
  }
  return queries;
}

const HIDEABLE = ['description', 'traits', 'age', 'role', 'climate', 'alignment', 'founded'];

/** `n` segment requests of 5–10 uris (elements at any depth, sometimes an aspect or the root), with exclusions. */
export function segmentWorkload(dataset, n, seed = 11) {
  const r = rng(seed);
  const requests = [];
  for (let i = 0; i < n; i++) {
    const size = int(r, 5, 10);
    const segments = [];
    for (let j = 0; j < size; j++) {
      const uri =
        j === 0 && chance(r, 0.2)
          ? pick(r, ['/', '/character', '/location', '/faction'])
          : pick(r, dataset.uris);
      const excluded = HIDEABLE.filter(() => chance(r, 0.25));
      segments.push(excluded.length > 0 ? { uri, excludedProperties: excluded } : { uri });
    }
    const excludedUris = chance(r, 0.3) ? [pick(r, dataset.uris)] : [];
    requests.push({ segments, ...(excludedUris.length > 0 ? { excludedUris } : {}) });
  }
  return requests;
}

/** Groups roots into apply() calls of about `batchSize` elements, one splice op per aspect, appending at the end. */
export function* insertBatches(dataset, batchSize) {
  const rootCount = { character: 0, location: 0, faction: 0 };
  let pending = [];
  let pendingSize = 0;
  const flush = () => {
    const ops = [];
    for (const aspect of Object.keys(ASPECTS)) {
      const data = pending.filter((root) => root.aspect === aspect).map((root) => root.element);
      if (data.length === 0) continue;
      ops.push({
        target: 'resource',
        location: { resource_uri: `/${aspect}`, children_key: null },
        start: rootCount[aspect],
        data,
      });
      rootCount[aspect] += data.length;
    }
    const batch = { ops, elements: pendingSize };
    pending = [];
    pendingSize = 0;
    return batch;
  };
  for (const root of dataset.roots) {
    pending.push(root);
    pendingSize += root.size;
    if (pendingSize >= batchSize) yield flush();
  }
  if (pending.length > 0) yield flush();
}
