import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { type PromptRenderer, TemplateNotFoundError, TemplateRenderError } from '@novelrag/agenturn';
import nunjucks from 'nunjucks';
import { baseLanguage } from './language';

export interface NunjucksPromptRendererOptions {
  /** Folder holding one sub-folder per language (`<root>/<lang>/<name>.njk`); see `findTemplatesRoot`. */
  readonly root: string;
  /** Second choice after the requested language (default `en`); `en` is always the last. */
  readonly defaultLang?: string;
}

const NAME_PATTERN = /^[a-z0-9_/-]+$/;
const LANG_PATTERN = /^[a-z]{2}(-[A-Za-z]{2,4})?$/;
const EXTENSION = '.njk';

/** nunjucks' runtime Frame is untyped in @types/nunjucks; this is the part we use. */
interface NunjucksFrame {
  lookup(name: string): unknown;
}
type FrameClass = new (parent?: NunjucksFrame, isolateWrites?: boolean) => NunjucksFrame;
const Frame = (nunjucks.runtime as unknown as { Frame: FrameClass }).Frame;

/**
 * The outermost scope of a render. nunjucks looks names up in frames (loop variables, `set`) before the context (our
 * variables and the globals), so every name no inner frame defines passes here; we note the ones the caller did not
 * supply. This catches missing variables in `if` and `for` too, where `throwOnUndefined` stays silent, and names the
 * variable, which nunjucks' own message does not.
 */
class RecordingFrame extends Frame {
  readonly missing = new Set<string>();
  constructor(
    private readonly supplied: Readonly<Record<string, unknown>>,
    private readonly globals: Readonly<Record<string, unknown>>,
  ) {
    super();
  }
  override lookup(name: string): unknown {
    const known =
      (Object.hasOwn(this.supplied, name) && this.supplied[name] !== undefined) || name in this.globals;
    if (!known) this.missing.add(name);
    return undefined; // the context resolves supplied names and globals
  }
}

interface LanguageEnvironment {
  readonly env: nunjucks.Environment;
  /** The folders the loader searches, in order (the chain minus languages without a folder). */
  readonly languages: readonly string[];
}

function isDirectory(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}

/**
 * `PromptRenderer` over nunjucks files. One Environment per language chain (requested → base language → default →
 * `en`, skipping folders that do not exist), compiled templates cached, no file watching. Prompts are plain text:
 * autoescape is off, and every variable a template reads must be supplied (pass `null` or `[]` for "none").
 * Filter `json(indent=2)` prints a value as JSON. Never render user-supplied templates: user text goes in variables.
 */
export class NunjucksPromptRenderer implements PromptRenderer {
  private readonly root: string;
  private readonly defaultLang: string;
  private readonly environments = new Map<string, LanguageEnvironment | null>();

  constructor(options: NunjucksPromptRendererOptions) {
    this.root = path.resolve(options.root);
    this.defaultLang =
      options.defaultLang && LANG_PATTERN.test(options.defaultLang) ? options.defaultLang : 'en';
  }

  render(name: string, variables: Readonly<Record<string, unknown>>, lang?: string): string {
    const chain = this.chainFor(lang);
    if (!NAME_PATTERN.test(name) || name.includes('..') || name.startsWith('/')) {
      throw new TemplateNotFoundError(name, []);
    }
    const environment = this.environmentFor(chain);
    if (!environment) throw new TemplateNotFoundError(name, chain);
    const file = `${name}${EXTENSION}`;

    let template: nunjucks.Template;
    try {
      template = environment.env.getTemplate(file, true);
    } catch (err) {
      if (err instanceof Error && /template not found/i.test(err.message)) {
        throw new TemplateNotFoundError(name, chain, { cause: err });
      }
      throw new TemplateRenderError(name, this.describe(err), { lang: chain[0] ?? 'en', cause: err });
    }

    const frame = new RecordingFrame(
      variables,
      (environment.env as unknown as { globals: Record<string, unknown> }).globals,
    );
    let output: string;
    try {
      output = (template as unknown as { render(ctx: object, frame: NunjucksFrame): string }).render(
        { ...variables },
        frame,
      );
    } catch (err) {
      const missing =
        frame.missing.size > 0 ? `undefined variable(s): ${[...frame.missing].join(', ')}; ` : '';
      throw new TemplateRenderError(name, missing + this.describe(err), {
        lang: chain[0] ?? 'en',
        cause: err,
      });
    }
    if (frame.missing.size > 0) {
      throw new TemplateRenderError(name, `undefined variable(s): ${[...frame.missing].join(', ')}`, {
        lang: chain[0] ?? 'en',
      });
    }
    return output;
  }

  /** requested → its base language → default → en; invalid codes fall back to the default. */
  private chainFor(lang: string | undefined): string[] {
    const requested = lang && LANG_PATTERN.test(lang) ? lang : this.defaultLang;
    const candidates = [
      requested,
      baseLanguage(requested),
      this.defaultLang,
      baseLanguage(this.defaultLang),
      'en',
    ];
    return [...new Set(candidates.filter((c) => c !== ''))];
  }

  private environmentFor(chain: readonly string[]): LanguageEnvironment | null {
    const key = chain.join('>');
    const cached = this.environments.get(key);
    if (cached !== undefined) return cached;
    const languages = chain.filter((l) => isDirectory(path.join(this.root, l)));
    let environment: LanguageEnvironment | null = null;
    if (languages.length > 0) {
      const loader = new nunjucks.FileSystemLoader(
        languages.map((l) => path.join(this.root, l)),
        { noCache: false, watch: false },
      );
      const env = new nunjucks.Environment(loader, {
        autoescape: false,
        throwOnUndefined: true,
        trimBlocks: true,
        lstripBlocks: true,
      });
      env.addFilter('json', (value: unknown, indent: unknown = 2) =>
        JSON.stringify(value ?? null, null, typeof indent === 'number' ? indent : 2),
      );
      environment = { env, languages };
    }
    this.environments.set(key, environment);
    return environment;
  }

  /** nunjucks' message without absolute paths (they say nothing to the reader and leak the deployment layout). */
  private describe(err: unknown): string {
    const message = err instanceof Error ? err.message : String(err);
    return message
      .split(this.root + path.sep)
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
  }
}
