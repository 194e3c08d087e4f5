import { AgenturnError } from './agenturn-error';

/** No language folder (requested → default → `en`) has the template. A deployment problem. */
export class TemplateNotFoundError extends AgenturnError {
  override readonly name = 'TemplateNotFoundError';
  constructor(
    readonly template: string,
    readonly languagesTried: readonly string[],
    options: { readonly cause?: unknown } = {},
  ) {
    super(
      'INTERNAL',
      `prompt template "${template}" not found (languages tried: ${languagesTried.join(', ') || 'none'})`,
      {
        fault: 'config',
        cause: options.cause,
        details: { template, languagesTried: [...languagesTried] },
      },
    );
  }
}

/** Rendering a template failed (syntax error, a variable the template uses was not supplied, a filter threw). */
export class TemplateRenderError extends AgenturnError {
  override readonly name = 'TemplateRenderError';
  constructor(
    readonly template: string,
    reason: string,
    options: { readonly lang?: string; readonly cause?: unknown } = {},
  ) {
    super('INTERNAL', `prompt template "${template}" failed to render: ${reason}`, {
      fault: 'config',
      cause: options.cause,
      details: { template, ...(options.lang === undefined ? {} : { lang: options.lang }) },
    });
  }
}
