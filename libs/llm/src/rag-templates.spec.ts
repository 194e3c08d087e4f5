import { NunjucksPromptRenderer } from './nunjucks-prompt-renderer';
import { findTemplatesRoot } from './templates-root';

const documents = [
  { doc_id: 'doc_01', uri: '/character/yu_gui', text: 'name: 余归\nsect: Azure Sect' },
  { doc_id: 'doc_02', uri: '/faction/azure_sect', text: 'name: Azure Sect\nseat: the north' },
];
const memory = { session_summary: 'The user asked about 余归 before.', memories: ['余归 trusts Lin Mo.'] };

/** The retrieval prompts with the variables their callers supply (the renderer fails on any missing one). */
const CASES: Record<string, Record<string, unknown>> = {
  rag_answer: { question: 'Who are 余归’s allies?', documents, ...memory },
  rag_rerank: { question: 'Who are 余归’s allies?', documents },
  rag_grade: { question: 'Who are 余归’s allies?', documents },
  rag_query_rewrite: { question: 'Who are 余归’s allies?', tried_queries: ['余归 allies'] },
  rag_classify_query: { question: 'and her sect?', ...memory },
  rag_agent: {
    question: 'Who are 余归’s allies?',
    ...memory,
    steps: [
      { tool: 'vector_retrieve', params: '{"query":"余归"}', status: 'success', summary: '2 document(s)' },
    ],
    documents,
    calls_made: 1,
    max_calls: 8,
    has_memory_tool: false,
  },
  rag_memory_update: { question: 'Who are 余归’s allies?', answer: 'Lin Mo.', session_summary: null },
};

describe('retrieval prompt templates', () => {
  const renderer = new NunjucksPromptRenderer({ root: findTemplatesRoot() });

  it.each(Object.entries(CASES))('%s renders in en and in its own zh version', (name, vars) => {
    const en = renderer.render(name, vars, 'en');
    const zh = renderer.render(name, vars, 'zh');
    expect(en).toContain(String(vars['question']));
    expect(zh).toContain(String(vars['question']));
    expect(zh).not.toEqual(en);
    expect(zh).toMatch(/[\u4e00-\u9fff]{6}/);
  });

  it.each(['en', 'zh'])(
    'the %s answer prompt lists the documents with ids and URIs and asks for exact quotes',
    (lang) => {
      const prompt = renderer.render('rag_answer', CASES['rag_answer']!, lang);
      for (const tag of ['<system_instruction>', '<documents>', '<output_rules>', '<memory>', '<question>'])
        expect(prompt).toContain(tag);
      expect(prompt).toContain(
        '<document id="doc_01" uri="/character/yu_gui">\nname: 余归\nsect: Azure Sect\n</document>',
      );
      expect(prompt).toContain('<document id="doc_02" uri="/faction/azure_sect">');
      expect(prompt).toContain('<cite doc_id="');
      expect(prompt).toContain('The user asked about 余归 before.');
      expect(prompt).toContain('<memory_item>余归 trusts Lin Mo.</memory_item>');
    },
  );

  it('says so when there is nothing to show', () => {
    const bare = renderer.render(
      'rag_answer',
      { question: 'q', documents: [], session_summary: null, memories: [] },
      'en',
    );
    expect(bare).toContain('(no documents were found)');
    expect(bare).toContain('(no earlier conversation)');
    expect(bare).not.toContain('<document id=');
  });

  it('every rank, grade and rewrite prompt names the output fields its schema expects', () => {
    expect(renderer.render('rag_rerank', CASES['rag_rerank']!, 'en')).toContain('`ranking`');
    expect(renderer.render('rag_grade', CASES['rag_grade']!, 'zh')).toContain('`relevant`');
    expect(renderer.render('rag_query_rewrite', CASES['rag_query_rewrite']!, 'en')).toContain(
      '- 余归 allies',
    );
    expect(renderer.render('rag_classify_query', CASES['rag_classify_query']!, 'en')).toContain('`retrieve`');
  });
});
