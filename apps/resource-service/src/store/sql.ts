/**
 * A SQL string literal for LanceDB (DataFusion) filters: the value wrapped in single quotes, each quote doubled.
 * Backslashes need no escaping (standard SQL literals have no escape character). Throws RangeError on a NUL
 * character, which no filter literal can carry.
 */
export function sqlString(value: string): string {
  if (value.includes('\u0000')) throw new RangeError('A SQL string literal cannot contain a NUL character');
  return `'${value.replaceAll("'", "''")}'`;
}

/** `column IN ('a', 'b')` with escaped literals; `false` for an empty list (matches nothing). */
export function sqlIn(column: string, values: readonly string[]): string {
  if (values.length === 0) return 'false';
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}
