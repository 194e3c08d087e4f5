import path from 'node:path';
import { isAgenturnError } from '@novelrag/agenturn';
import { NunjucksPromptRenderer } from './nunjucks-prompt-renderer';

const root = path.join(__dirname, '__fixtures__', 'templates');

function caught(fn: () => unknown): Error & { code?: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('NunjucksPromptRenderer', () => {
  const renderer = new NunjucksPromptRenderer({ root });

  it('renders the requested language when it has the template', () => {
    expect(renderer.render('greeting', { name: '余归', items: ['a', 'b'] }, 'zh')).toBe(
      '你好，余归。\n- a\n- b\n',
    );
  });

  it('falls back from the requested language to the default, then to en', () => {
    expect(renderer.render('english_only', { topic: 'swords' }, 'zh')).toBe('Only in English: swords\n');
    const zhDefault = new NunjucksPromptRenderer({ root, defaultLang: 'zh' });
    expect(zhDefault.render('greeting', { name: 'A', items: [] }, 'fr')).toBe('你好，A。\n');
    expect(zhDefault.render('english_only', { topic: 't' }, 'fr')).toBe('Only in English: t\n');
  });

  it('uses the base language of a regional code and accepts a missing language folder', () => {
    expect(renderer.render('greeting', { name: 'B', items: [] }, 'zh-CN')).toBe('你好，B。\n');
    expect(renderer.render('greeting', { name: 'C', items: [] }, 'ko')).toBe('Hello C.\n');
  });

  it('treats an invalid language code as the default language', () => {
    expect(renderer.render('greeting', { name: 'D', items: [] }, '../zh')).toBe('Hello D.\n');
  });

  it('renders templates in sub-folders', () => {
    expect(renderer.render('nested/inner', { name: 'x' })).toBe('Nested x\n');
  });

  it('keeps text raw: no HTML escaping, json filter available', () => {
    const out = renderer.render('raw_text', { text: `<b>&"'`, data: { a: [1, '<x>'] } });
    expect(out).toBe(`Raw: <b>&"'\nData: {\n  "a": [\n    1,\n    "<x>"\n  ]\n}\n`);
  });

  it('names an undefined output variable in a TemplateRenderError', () => {
    const err = caught(() => renderer.render('uses_undefined', { present: 'yes' }));
    expect(err.name).toBe('TemplateRenderError');
    expect(isAgenturnError(err)).toBe(true);
    expect(err.message).toContain('uses_undefined');
    expect(err.message).toContain('undefined variable(s): absent');
    expect(err.message).not.toContain(root);
  });

  it('rejects a missing variable used only in a condition or a loop', () => {
    expect(caught(() => renderer.render('conditional', {})).message).toContain('undefined variable(s): flag');
    expect(caught(() => renderer.render('greeting', { name: 'x' })).message).toContain(
      'undefined variable(s): items',
    );
    // trimBlocks eats the newline after endif
    expect(renderer.render('conditional', { flag: null })).toBe('flag off');
  });

  it('reports syntax errors as TemplateRenderError', () => {
    const err = caught(() => renderer.render('syntax_error', {}));
    expect(err.name).toBe('TemplateRenderError');
    expect(err.message).toContain('syntax_error');
  });

  it('throws TemplateNotFoundError naming the template and the languages tried', () => {
    const err = caught(() => renderer.render('no_such_template', {}, 'zh'));
    expect(err.name).toBe('TemplateNotFoundError');
    expect(err.details).toEqual({ template: 'no_such_template', languagesTried: ['zh', 'en'] });
  });

  it('refuses template names that could leave the root', () => {
    for (const name of ['../secret', '/etc/passwd', 'a/../../b', 'Upper']) {
      expect(caught(() => renderer.render(name, {})).name).toBe('TemplateNotFoundError');
    }
  });

  it('throws TemplateNotFoundError when no language folder exists at all', () => {
    const empty = new NunjucksPromptRenderer({ root: path.join(root, 'nowhere') });
    expect(caught(() => empty.render('greeting', {})).name).toBe('TemplateNotFoundError');
  });
});
