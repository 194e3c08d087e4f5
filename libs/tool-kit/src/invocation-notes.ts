import type { KV } from '@nats-io/kv';
import { KvKeys } from '@novelrag/contracts';

/**
 * Durable notes of one invocation, kept next to its at-most-once record (same bucket, same TTL): what a tool decided
 * before it acted, e.g. the operations a write tool generated and the human's answer to them. A retry of the invocation
 * (its runner died before the result was recorded) reads them back and acts on that decision instead of making a new
 * one, so a retried write is the same write. Store failures reject: a tool must not act on a decision it could not
 * record.
 */
export interface InvocationNotes {
  /** The note `name` of the invocation, or undefined when none was written (or it expired). */
  read(invocationId: string, name: string): Promise<unknown>;
  /** Writes (or replaces) the note `name` of the invocation; resolves once it is stored. */
  write(invocationId: string, name: string, value: unknown): Promise<void>;
}

/** The notes of one invocation, as a tool sees them (`ToolContext.notes`). */
export interface ToolNotes {
  read(name: string): Promise<unknown>;
  write(name: string, value: unknown): Promise<void>;
}

/** The notes in a JetStream KV bucket (the tool-results bucket of the host's principal). */
export class KvInvocationNotes implements InvocationNotes {
  constructor(private readonly kv: KV) {}

  async read(invocationId: string, name: string): Promise<unknown> {
    const entry = await this.kv.get(KvKeys.toolNote(invocationId, name));
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    try {
      return entry.json();
    } catch {
      return undefined; // not JSON: no usable note (the tool validates what it reads anyway)
    }
  }

  async write(invocationId: string, name: string, value: unknown): Promise<void> {
    await this.kv.put(KvKeys.toolNote(invocationId, name), JSON.stringify(value));
  }
}

/** The notes of `invocationId`, bound for a tool. */
export function notesOf(notes: InvocationNotes, invocationId: string): ToolNotes {
  return {
    read: (name) => notes.read(invocationId, name),
    write: (name, value) => notes.write(invocationId, name, value),
  };
}
