import { baseLanguage, contentDirective, interactionDirective, languageName } from './language';
import { buildMessages } from './messages';

describe('language directives', () => {
  it('names the content language when one is set, for every generated value', () => {
    const d = contentDirective('zh', ['The world is English']);
    expect(d).toContain('in Chinese');
    expect(d).toMatch(/identifiers, URIs/);
    expect(d).toMatch(/JSON keys.*English/);
  });

  it('follows the beliefs when no language is set, else English', () => {
    expect(contentDirective(undefined, ['世界观：修仙'])).toContain(
      'language the beliefs below are written in',
    );
    expect(contentDirective(null, ['  '])).toContain('in English');
    expect(contentDirective()).toContain('in English');
    expect(contentDirective('', [])).toContain('in English');
  });

  it('maps codes to names, with regional codes, the cn alias and unknown codes', () => {
    expect(languageName('ja')).toBe('Japanese');
    expect(languageName('zh-TW')).toBe('Chinese');
    expect(languageName('cn')).toBe('Chinese');
    expect(languageName('ar')).toBe('Arabic');
    expect(languageName('sw')).toBe('sw');
    expect(baseLanguage('pt-BR')).toBe('pt');
  });

  it('asks for the user language in interactions', () => {
    expect(interactionDirective()).toMatch(/language of the user's own input/);
  });
});

describe('buildMessages', () => {
  it('puts directive and template into one system message and the instruction into the user turn', () => {
    expect(buildMessages('Directive.', '\nTemplate body\n', ' Assess the progress. ')).toEqual([
      { role: 'system', content: 'Directive.\n\nTemplate body' },
      { role: 'user', content: 'Assess the progress.' },
    ]);
  });
});
