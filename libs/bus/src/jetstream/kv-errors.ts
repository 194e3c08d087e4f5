/**
 * Whether a KV write failed its compare-and-swap: the key exists (create) or its last revision is not the expected
 * one (update, delete with `previousSeq`). The client reports it as a JetStream API error (code 10071).
 */
export function isWrongSequence(err: unknown): boolean {
  const text =
    err instanceof Error ? `${err.message} ${String((err as { code?: unknown }).code ?? '')}` : String(err);
  return /wrong last sequence|key exists|10071/i.test(text);
}
