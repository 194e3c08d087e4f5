/** English names of the languages the directives can name; other codes are named by their code. */
export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  zh: 'Chinese',
  ja: 'Japanese',
  ko: 'Korean',
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  pt: 'Portuguese',
  ru: 'Russian',
  ar: 'Arabic',
};

/** `cn` is a common (if incorrect) code for Chinese; the original accepted it too. */
const ALIASES: Readonly<Record<string, string>> = { cn: 'zh' };

/** The base language of a code (`zh-CN` → `zh`, `cn` → `zh`), lower-cased. */
export function baseLanguage(lang: string): string {
  const base = lang.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return ALIASES[base] ?? base;
}

/** The English name of a language code (`zh-TW` → `Chinese`); unknown codes come back as given. */
export function languageName(lang: string): string {
  return LANGUAGE_NAMES[baseLanguage(lang)] ?? lang.trim();
}

/**
 * The directive for calls that produce content (assessment, planning, tools, goal deciders). With a language, all
 * generated text is in it; without one, the language of the beliefs is followed when there are beliefs; otherwise
 * English. JSON keys always stay English because the schemas name them.
 */
export function contentDirective(lang?: string | null, beliefs?: readonly string[] | null): string {
  const keys = 'Keep JSON keys, tool names and parameter names exactly as specified (English).';
  if (lang && lang.trim() !== '') {
    const name = languageName(lang);
    return (
      `Language: write every value you generate in ${name}, including identifiers, URIs, property values, ` +
      `descriptions, analysis and search queries. ${keys}`
    );
  }
  if (beliefs && beliefs.some((b) => b.trim() !== '')) {
    return (
      'Language: write every value you generate in the language the beliefs below are written in, including ' +
      `identifiers, URIs, property values, descriptions, analysis and search queries. ${keys}`
    );
  }
  return `Language: write every value you generate in English. ${keys}`;
}

/** The directive for calls that talk to the user (goal translation): answer in the language the user wrote in. */
export function interactionDirective(): string {
  return (
    "Language: reply in the language of the user's own input (their request), whatever language the rest of this " +
    'prompt is in. Keep JSON keys exactly as specified (English).'
  );
}
