import type { ThreadHistoryEntry } from '@novelrag/contracts';

/** The thread's history as the prompts read it (newest last). */
export function formatThreadHistory(history: readonly ThreadHistoryEntry[], n: number): string {
  return history
    .slice(-n)
    .map((h) => {
      const asked = h.request ?? h.goal ?? '';
      return `User: ${asked}\nAgent (${h.status}): ${h.response}`;
    })
    .join('\n\n');
}
