/**
 * Renders a named prompt template (`<name>` without extension, e.g. `assess_pursuit_progress`) with variables.
 * Language fallback: `lang` → the renderer's default language → `en`. A missing language folder is not an error.
 *
 * Throws `TemplateNotFoundError` when no language has the template and `TemplateRenderError` when rendering fails,
 * including any variable the template uses that was not supplied.
 */
export interface PromptRenderer {
  render(name: string, variables: Readonly<Record<string, unknown>>, lang?: string): string;
}
