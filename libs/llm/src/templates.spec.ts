import path from 'node:path';
import { NunjucksPromptRenderer } from './nunjucks-prompt-renderer';
import { findTemplatesRoot } from './templates-root';

// The product templates: each language renders with exactly the variables its caller supplies.
describe('product templates', () => {
  const root = findTemplatesRoot({});
  const renderer = new NunjucksPromptRenderer({ root });

  it('finds the repository templates/ folder by walking up', () => {
    expect(root).toBe(path.resolve(__dirname, '../../../templates'));
  });

  it('honours NOVELRAG_TEMPLATES_DIR and rejects a missing folder', () => {
    expect(findTemplatesRoot({ NOVELRAG_TEMPLATES_DIR: root })).toBe(root);
    expect(() => findTemplatesRoot({ NOVELRAG_TEMPLATES_DIR: path.join(root, 'missing') })).toThrow(
      /NOVELRAG_TEMPLATES_DIR/,
    );
  });

  it.each(['en', 'zh'])(
    'renders translate_request_to_goal in %s with and without beliefs and history',
    (lang) => {
      const full = renderer.render(
        'translate_request_to_goal',
        { request: 'Create 余归 <of the Azure Sect>', beliefs: ['Magic has a price'], history: 'user: hi' },
        lang,
      );
      expect(full).toContain('Create 余归 <of the Azure Sect>');
      expect(full).toContain('- Magic has a price');
      expect(full).toContain('user: hi');
      expect(full).toContain('{"goal"');
      const bare = renderer.render(
        'translate_request_to_goal',
        { request: 'x', beliefs: [], history: '' },
        lang,
      );
      expect(bare).not.toContain('Magic');
    },
  );

  it('writes the zh prompt in Chinese', () => {
    const zh = renderer.render('translate_request_to_goal', { request: 'x', beliefs: [], history: '' }, 'zh');
    expect(zh).toContain('目标');
  });
});
