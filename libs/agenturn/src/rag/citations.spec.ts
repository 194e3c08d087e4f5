import { ModelOutputError } from '../errors/model-errors';
import { parseCiteTags } from './cite-tags';
import { type SourceDocument, verifyCitations } from './citations';
import { normalizeForQuote, quoteAppearsIn } from './quote-match';

const en: SourceDocument[] = [
  {
    docId: 'doc_01',
    uri: '/character/yu_gui',
    text: 'Yu Gui is a swordswoman of the Azure Sect.\nShe never forgets a debt, and she trusts Lin Mo.',
  },
  { docId: 'doc_02', uri: '/faction/azure_sect', text: 'The Azure Sect holds a seat in the north council.' },
];
const zh: SourceDocument[] = [
  {
    docId: 'doc_01',
    uri: '/character/yu_gui',
    text: '余归是青云宗的剑客，\n性格沉默而固执；她从不忘记恩情。',
  },
  { docId: 'doc_02', uri: '/faction/azure_sect', text: '青云宗在北方议会中占有一席之地。' },
];

const cite = (docId: string, quote: string, claim = 'claim') =>
  `<cite doc_id="${docId}" quote="${quote}">${claim}</cite>`;

describe('quote normalisation', () => {
  it('ignores whitespace, line breaks, case, and ASCII, full-width and CJK punctuation', () => {
    expect(normalizeForQuote('Ｙｕ Gui,\n is　ＡＢＣ！')).toBe('yuguiisabc');
    expect(normalizeForQuote('余归是青云宗的剑客，\n性格沉默而固执；「她」')).toBe(
      '余归是青云宗的剑客性格沉默而固执她',
    );
    expect(quoteAppearsIn('剑客,性格沉默', zh[0]!.text)).toBe(true);
    expect(quoteAppearsIn('剑客，性格热情', zh[0]!.text)).toBe(false);
    expect(quoteAppearsIn('的', zh[0]!.text)).toBe(false);
  });
});

describe('verifyCitations (English)', () => {
  it('verifies quotes found in the cited document despite case, spacing and line breaks', () => {
    const answer =
      `Yu Gui ${cite('doc_01', 'a swordswoman of the  azure sect')} and ` +
      `${cite('doc_01', 'she never forgets a debt and she trusts Lin Mo')}.`;
    const result = verifyCitations(answer, en, 'flag');
    expect(result.citations).toEqual([
      {
        docId: 'doc_01',
        uri: '/character/yu_gui',
        quote: 'a swordswoman of the  azure sect',
        verified: true,
      },
      {
        docId: 'doc_01',
        uri: '/character/yu_gui',
        quote: 'she never forgets a debt and she trusts Lin Mo',
        verified: true,
      },
    ]);
    expect(result.unverified).toBe(0);
    expect(result.answer).toBe(answer);
  });

  it('never verifies a fabricated quote, a quote from another document, an unknown doc_id or a tiny quote', () => {
    const answer = [
      cite('doc_01', 'Yu Gui betrayed the Azure Sect'),
      cite('doc_01', 'holds a seat in the north council'),
      cite('doc_09', 'a swordswoman of the Azure Sect'),
      cite('doc_01', 'a'),
    ].join(' ');
    const result = verifyCitations(answer, en, 'flag');
    expect(result.citations.map((c) => [c.verified, c.problem, c.uri])).toEqual([
      [false, 'quote_not_found', '/character/yu_gui'],
      [false, 'quote_in_other_document', '/character/yu_gui'],
      [false, 'unknown_document', null],
      [false, 'quote_too_short', '/character/yu_gui'],
    ]);
    expect(result.unverified).toBe(4);
    expect(result.answer).toBe(answer);
  });

  it('strips unverified citations but keeps their claim text and the verified ones', () => {
    const good = cite('doc_02', 'holds a seat in the north council', 'it sits in the north');
    const answer = `The sect ${good}; ${cite('doc_02', 'rules the south', 'it rules the south')}.`;
    const result = verifyCitations(answer, en, 'strip');
    expect(result.answer).toBe(`The sect ${good}; it rules the south.`);
    expect(result.citations.map((c) => c.verified)).toEqual([true, false]);
  });

  it('fails the answer under the fail policy without quoting it', () => {
    const answer = `X ${cite('doc_01', 'SECRET fabricated words')} ${cite('made-up-id', 'SECRET too')}`;
    let error: unknown;
    try {
      verifyCitations(answer, en, 'fail');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ModelOutputError);
    expect(error).toMatchObject({
      code: 'MODEL_OUTPUT_INVALID',
      issues: [
        { path: 'citations.0', message: 'quote_not_found (doc_id doc_01)' },
        { path: 'citations.1', message: 'unknown_document' },
      ],
    });
    expect(String((error as Error).message)).not.toMatch(/SECRET|made-up-id/);
    expect(verifyCitations(`ok ${cite('doc_02', 'a seat in the north')}`, en, 'fail').unverified).toBe(0);
  });

  it('reads single quotes, entities and self-closing tags', () => {
    const answer =
      `<cite doc_id='doc_02' quote="The Azure Sect holds a seat" /> and ` +
      `<cite quote="never forgets a debt, and she trusts Lin Mo" doc_id="doc_01">loyal</cite> ` +
      `<cite doc_id="doc_01" quote="&quot;Yu Gui&quot; is a swordswoman">x</cite>`;
    expect(verifyCitations(answer, en, 'flag').citations.map((c) => c.verified)).toEqual([true, true, true]);
  });

  it('treats malformed tags as unverified and strips them', () => {
    const answer =
      'A <cite doc_id="doc_01">no quote</cite> B <cite doc_id="doc_01" quote="Yu Gui is a swordswoman">spans ' +
      'C </cite> D <cite doc_id="doc_01" quote="x" junk>bad attrs</cite> E <cite quote="of the Azure Sect">no id</cite>';
    const tags = parseCiteTags(answer);
    expect(tags.map((t) => t.malformed)).toEqual([false, false, true, false]);
    const result = verifyCitations(answer, en, 'strip');
    expect(result.citations.map((c) => [c.verified, c.problem])).toEqual([
      [false, 'malformed'],
      [true, undefined],
      [false, 'malformed'],
      [false, 'malformed'],
    ]);
    expect(result.answer).toBe(
      'A no quote B <cite doc_id="doc_01" quote="Yu Gui is a swordswoman">spans C </cite> D bad attrs E no id',
    );
  });

  it('reports an unclosed tag and a nested opening tag as malformed', () => {
    const answer = `<cite doc_id="doc_01" quote="Yu Gui is">one <cite doc_id="doc_02" quote="north council">two`;
    const result = verifyCitations(answer, en, 'strip');
    expect(result.citations.map((c) => c.problem)).toEqual(['malformed', 'malformed']);
    expect(result.answer).toBe('one two');
  });

  it('has no citations when the answer cites nothing', () => {
    expect(verifyCitations('I do not know.', en, 'fail')).toEqual({
      answer: 'I do not know.',
      citations: [],
      unverified: 0,
    });
  });
});

describe('verifyCitations (Chinese)', () => {
  it('verifies quotes whose full-width punctuation and line breaks differ from the document', () => {
    const answer =
      `余归${cite('doc_01', '余归是青云宗的剑客，性格沉默而固执', '是青云宗的剑客')}，` +
      `${cite('doc_01', '性格沉默而固执,她从不忘记恩情。', '而且重情义')}。`;
    const result = verifyCitations(answer, zh, 'fail');
    expect(result.citations.map((c) => c.verified)).toEqual([true, true]);
  });

  it('matches full-width ASCII in a quote against half-width in the document', () => {
    const docs: SourceDocument[] = [{ docId: 'd', uri: '/item/sword', text: '剑名为ABC-7，长三尺。' }];
    expect(verifyCitations(cite('d', '剑名为ＡＢＣ７，长三尺'), docs, 'fail').citations[0]?.verified).toBe(
      true,
    );
  });

  it('catches a fabricated quote and a quote from another document', () => {
    const answer = `${cite('doc_01', '余归背叛了青云宗')}${cite('doc_01', '青云宗在北方议会中占有一席之地')}`;
    const result = verifyCitations(answer, zh, 'strip');
    expect(result.citations.map((c) => c.problem)).toEqual(['quote_not_found', 'quote_in_other_document']);
    expect(result.answer).toBe('claimclaim');
  });
});
