import { Jieba } from '@node-rs/jieba';
import { dict } from '@node-rs/jieba/dict';
import { pinyin } from 'pinyin-pro';
import { eng, zho } from 'stopword';

/**
 * The text analysis every store applies, the same at index and at query time:
 * - NFKC (full-width letters, digits and punctuation become their plain forms) and lower case;
 * - runs of Han/kana/Hangul are segmented into words (jieba, with its bundled dictionary) and also cut into
 *   character bigrams, so a name the dictionary does not know (余归) still matches as a whole; runs of other
 *   letters and digits are words;
 * - stop words of both languages (the `stopword` lists plus question words) are dropped, punctuation is a
 *   separator, English words lose a plural or possessive ending.
 * Names get pinyin forms on top (`nameTerms`), so "Yu Gui" finds 余归.
 */

const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu;
const HAN = /\p{Script=Han}/u;

/** Question words the generic lists lack: they say what is asked, never what it is about. */
const QUESTION_WORDS = [
  '哪里',
  '哪儿',
  '哪个',
  '哪位',
  '哪种',
  '哪些',
  '什么',
  '怎么',
  '怎样',
  '为什么',
  '多少',
  '是否',
  'does',
  'did',
  'do',
  'whom',
  'whose',
  's',
];
const STOP_WORDS = new Set<string>([...eng, ...zho, ...QUESTION_WORDS]);

let jieba: Jieba | undefined;
function segmenter(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

/** NFKC, lower case. */
export function normalise(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** A word's form without a plural or possessive ending (`herons` → `heron`, `cities` → `city`). */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

function cjkTerms(run: string, out: string[]): void {
  // jieba's words (HMM on, for words its dictionary lacks), then the character bigrams of each stretch between
  // stop words that are not already a word.
  const words = new Set<string>();
  const stretches: string[][] = [[]];
  for (const word of segmenter().cut(run, true)) {
    if (STOP_WORDS.has(word)) {
      stretches.push([]);
      continue;
    }
    out.push(word);
    words.add(word);
    stretches[stretches.length - 1]?.push(...word);
  }
  for (const chars of stretches) {
    for (let i = 0; i + 1 < chars.length; i++) {
      const bigram = `${chars[i]}${chars[i + 1]}`;
      if (!words.has(bigram)) out.push(bigram);
    }
  }
}

/** The terms of a text (see the module comment); duplicates are kept (they are term frequencies). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const match of normalise(text).matchAll(RUN)) {
    const run = match[0];
    if (CJK_CHAR.test(run[0] ?? '')) cjkTerms(run, out);
    else if (!STOP_WORDS.has(run)) out.push(stem(run));
  }
  return out;
}

/** Pinyin readings of a name's Han characters: the syllables, all of them joined, and the given name joined. */
export function pinyinForms(name: string): string[] {
  const out: string[] = [];
  for (const match of normalise(name).matchAll(/\p{Script=Han}+/gu)) {
    const syllables = pinyin(match[0], { toneType: 'none', type: 'array', v: true }).filter(
      (s) => s.length > 0,
    );
    out.push(...syllables);
    if (syllables.length > 1) out.push(syllables.join(''));
    if (syllables.length > 2) out.push(syllables.slice(1).join(''));
  }
  return out;
}

/**
 * Adjacent pairs of non-CJK terms joined (`yu`, `gui` → `yugui`): on the name side they make a whole name,
 * `Yu Gui`, outrank a name with the same words in another order (归雨, `gui yu`).
 */
export function shingles(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < terms.length; i++) {
    const [a, b] = [terms[i] as string, terms[i + 1] as string];
    if (!CJK_CHAR.test(a) && !CJK_CHAR.test(b)) out.push(`${a}${b}`);
  }
  return out;
}

/** The terms a name is found by: its analysed terms and their shingles and, for Chinese names, its pinyin forms. */
export function nameTerms(name: string): string[] {
  const terms = analyze(name);
  return [...terms, ...shingles(terms), ...(HAN.test(name) ? pinyinForms(name) : [])];
}

/**
 * A name or query as compared for exact and mention matches: NFKC, lower case, every run of punctuation and space
 * one space, trimmed. `余归` → `余归`; `Gull's Rest` → `gull s rest`.
 */
export function matchKey(text: string): string {
  return [...normalise(text).matchAll(RUN)].map((m) => m[0]).join(' ');
}

/** The match keys of a name: the name itself and, for a Chinese name, its spaced and joined pinyin. */
export function nameKeys(name: string): string[] {
  const key = matchKey(name);
  if (key.length === 0) return [];
  if (!HAN.test(name)) return [key];
  const syllables = pinyin(normalise(name).replace(/[^\p{Script=Han}]/gu, ''), {
    toneType: 'none',
    type: 'array',
    v: true,
  });
  return [key, syllables.join(' '), syllables.join('')];
}

/**
 * Whether `query` (a match key) mentions `name` (a match key): CJK names as a substring (no spaces in Chinese),
 * other names as whole words. Names shorter than 2 CJK or 3 other characters only match exactly.
 */
export function mentions(query: string, name: string): boolean {
  if (query === name) return true;
  const cjk = CJK_CHAR.test(name);
  if ([...name].length < (cjk ? 2 : 3)) return false;
  return cjk ? query.includes(name) : ` ${query} `.includes(` ${name} `);
}
