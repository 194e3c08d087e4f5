/** The verdict of one conformance check. */
export interface CheckResult {
  readonly check: string;
  readonly status: 'pass' | 'fail' | 'skip';
  readonly message: string;
}

export const pass = (check: string, message: string): CheckResult => ({ check, status: 'pass', message });
export const fail = (check: string, message: string): CheckResult => ({ check, status: 'fail', message });
export const skip = (check: string, message: string): CheckResult => ({ check, status: 'skip', message });

/** One line per check (`PASS discovery: …`), then a summary line. */
export function renderReport(tool: string, results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  const lines = results.map(
    (r) => `${r.status.toUpperCase().padEnd(4)} ${r.check.padEnd(width)}  ${r.message}`,
  );
  const failed = results.filter((r) => r.status === 'fail').length;
  const passed = results.filter((r) => r.status === 'pass').length;
  const summary =
    failed > 0
      ? `${tool}: ${failed} check(s) failed, ${passed} passed`
      : `${tool}: all ${passed} checks passed`;
  return [...lines, summary].join('\n');
}
