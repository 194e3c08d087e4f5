type Json = Record<string, unknown>;

/** Paths of the objects in a provider schema that are not closed with every property required (strict mode). */
export function openObjects(node: unknown, path = '$'): string[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((n, i) => openObjects(n, `${path}[${i}]`));
  const obj = node as Json;
  const own: string[] = [];
  if (obj['type'] === 'object') {
    const keys = Object.keys((obj['properties'] as Json | undefined) ?? {});
    const required = (obj['required'] as string[] | undefined) ?? [];
    if (obj['additionalProperties'] !== false || keys.some((k) => !required.includes(k))) own.push(path);
  }
  return [...own, ...Object.entries(obj).flatMap(([k, v]) => openObjects(v, `${path}.${k}`))];
}
