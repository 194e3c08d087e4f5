import { analyze, matchKey, mentions, nameKeys, nameTerms, shingles, stem } from './analyzer';
import { Bm25Index } from './bm25';

describe('text analysis', () => {
  it('segments Chinese into words and bigrams, dropping particles and question words', () => {
    expect(analyze('余归的师父是谁？')).toEqual(['余归', '师父']);
    expect(analyze('丹霞阁在哪里')).toEqual(['丹霞', '阁', '霞阁']);
  });

  it('drops English stop words, punctuation and plural or possessive endings', () => {
    expect(analyze("Who is Elena Voss's twin sister?")).toEqual(['elena', 'voss', 'twin', 'sister']);
    expect(analyze('the Ash Herons')).toEqual(['ash', 'heron']);
    expect(stem('cities')).toBe('city');
    expect(stem('glass')).toBe('glass');
  });

  it('reads full-width letters, digits and punctuation as plain ones', () => {
    expect(analyze('Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ１２３')).toEqual(['full', 'width', 'abc123']);
    expect(matchKey("Gull's  Rest!")).toBe('gull s rest');
  });

  it('gives Chinese names their pinyin and joins adjacent name words', () => {
    expect(nameTerms('余归')).toEqual(['余归', 'yu', 'gui', 'yugui']);
    expect(nameTerms('陆沉舟')).toEqual(
      expect.arrayContaining(['lu', 'chen', 'zhou', 'luchenzhou', 'chenzhou']),
    );
    expect(nameKeys('余归')).toEqual(['余归', 'yu gui', 'yugui']);
    expect(shingles(['elena', 'voss', '余归'])).toEqual(['elenavoss']);
  });

  it('finds a mentioned name: Chinese as a substring, others as whole words, short names only exactly', () => {
    expect(mentions(matchKey('余归的师父是谁'), '余归')).toBe(true);
    expect(mentions(matchKey("Who is Yu Gui's master?"), 'yu gui')).toBe(true);
    expect(mentions(matchKey('Who is Yugo?'), 'yu gui')).toBe(false);
    expect(mentions(matchKey('the ash heron'), 'ash')).toBe(true);
    expect(mentions(matchKey('a b c'), 'b')).toBe(false);
  });
});

describe('Bm25Index', () => {
  it('ranks rarer and more frequent terms higher, forgets deleted documents, filters ids', () => {
    const index = new Bm25Index();
    index.set('a', ['sword', 'sect']);
    index.set('b', ['sect', 'market']);
    index.set('c', ['sword', 'sword', 'peak']);
    expect(index.search(['sword'], 10)).toEqual(['c', 'a']);
    expect(index.search(['sword', 'market'], 10)[0]).toBe('b');
    expect(index.search(['sword'], 10, (id) => id !== 'c')).toEqual(['a']);
    index.delete('c');
    expect(index.search(['sword'], 10)).toEqual(['a']);
    expect(index.search(['peak'], 10)).toEqual([]);
    index.set('a', ['market']);
    expect(index.search(['sword'], 10)).toEqual([]);
  });
});
