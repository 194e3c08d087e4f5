/** Small text helpers for terminal output. */

/** Collapses whitespace and cuts to `max` characters with an ellipsis. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Keeps line breaks, cuts to `max` characters with a note. */
export function clip(text: string, max: number): string {
  const trimmed = text.trim();
  return trimmed.length > max
    ? `${trimmed.slice(0, max)}… (${trimmed.length - max} more characters)`
    : trimmed;
}

/** Compact JSON of tool parameters and the like, cut to `max`. */
export function compactJson(value: unknown, max = 160): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return oneLine(text, max);
}

export function list(items: readonly string[], max = 4): string {
  if (items.length === 0) return '—';
  const shown = items.slice(0, max).map((i) => oneLine(i, 60));
  return items.length > max ? `${shown.join(', ')} (+${items.length - max})` : shown.join(', ');
}

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const ansi = (code: number, reset: number) => (s: string) => `\u001b[${code}m${s}\u001b[${reset}m`;

export const COLOR: Style = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  green: ansi(32, 39),
  red: ansi(31, 39),
  yellow: ansi(33, 39),
  cyan: ansi(36, 39),
};

const id = (s: string) => s;
export const PLAIN: Style = { bold: id, dim: id, green: id, red: id, yellow: id, cyan: id };
