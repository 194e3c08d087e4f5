import type { OperationOutcome } from './step';
import type { PursuitOutcome } from './pursuit';

export interface SummarizeOptions {
  /** Max characters of each step's result or error (default 300). */
  readonly maxResultLen?: number;
  /** Max characters of the response (default 500). */
  readonly maxResponseLen?: number;
}

/** Cuts `text` to `max` characters and says how much was dropped, so a reader knows it is partial. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max))}… [truncated, ${text.length - max} more chars]`;
}

/** One line per step (`  1. ✓ tool: reason`) plus an indented result or error line. */
export function formatSteps(steps: readonly OperationOutcome[], maxResultLen = 300): string[] {
  const lines: string[] = [];
  steps.forEach((step, i) => {
    const mark = step.status === 'success' ? '✓' : '✗';
    const cancelled = step.status === 'cancelled' ? ' (cancelled)' : '';
    lines.push(`  ${i + 1}. ${mark} ${step.operation.tool}: ${step.operation.reason}${cancelled}`);
    if (step.status === 'success') {
      if (step.result !== null) lines.push(`     Result: ${truncateText(step.result, maxResultLen)}`);
    } else if (step.errorMessage !== null) {
      lines.push(`     Error: ${truncateText(step.errorMessage, maxResultLen)}`);
    }
  });
  return lines;
}

/**
 * A multi-line text summary of an outcome, used in prompts (interaction history) and logs: the goal, status and step
 * count; the reason unless completed; one ✓/✗ line per step with its truncated result or error; the truncated response.
 */
export function summarizeOutcome(outcome: PursuitOutcome, options: SummarizeOptions = {}): string {
  const maxResultLen = options.maxResultLen ?? 300;
  const maxResponseLen = options.maxResponseLen ?? 500;
  const lines = [
    `Goal: ${outcome.goal.description}`,
    `Status: ${outcome.status}`,
    `Steps executed: ${outcome.executedSteps.length}`,
  ];
  if (outcome.status !== 'completed') lines.push(`Reason: ${outcome.reason}`);
  if (outcome.executedSteps.length > 0) {
    lines.push('Steps:', ...formatSteps(outcome.executedSteps, maxResultLen));
  }
  lines.push(`Response: ${truncateText(outcome.response, maxResponseLen)}`);
  return lines.join('\n');
}
