import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FakeOpenAIServer } from '../fake-openai-server';
import type { FakeReply, RecordedRequest } from '../fake-openai-types';
import { REPO_ROOT } from '../repo-root';

/** A rule of tools/demo/scenario.json (see tools/demo/scripted-llm.mjs): matched per request, first match wins. */
export interface ScenarioRule {
  readonly id?: string;
  readonly when?: {
    readonly schema?: string;
    readonly tool?: string;
    readonly contains?: readonly string[];
    readonly absent?: readonly string[];
    readonly anyOf?: readonly string[];
  };
  readonly reply: {
    readonly json?: unknown;
    readonly text?: string;
    readonly content?: string;
    readonly toolCall?: { readonly name: string; readonly arguments: unknown };
  };
}

/** A rule that answers the action decision (the call offering `Finalize`) of matching prompts with a tool call. */
export const decide = (
  id: string,
  contains: string[],
  name: string,
  args: Record<string, unknown>,
): ScenarioRule => ({
  id,
  when: { tool: 'Finalize', contains },
  reply: { content: `deciding ${id}`, toolCall: { name, arguments: args } },
});

/** A rule that finishes matching goals successfully with `response`. */
export const finalize = (id: string, contains: string[], response: string): ScenarioRule =>
  decide(id, contains, 'Finalize', { status: 'success', response, evidence: [], gaps: [] });

let scenario: { rules: ScenarioRule[] } | undefined;

/** The offline demo's recorded scenario (read once, on first use). */
export function demoScenario(): { rules: ScenarioRule[] } {
  scenario ??= JSON.parse(readFileSync(path.join(REPO_ROOT, 'tools/demo/scenario.json'), 'utf8')) as {
    rules: ScenarioRule[];
  };
  return scenario;
}

function messagesText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [];
  return messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
}

function toReply(reply: ScenarioRule['reply']): FakeReply {
  if (reply.toolCall)
    return {
      toolCalls: [{ name: reply.toolCall.name, arguments: reply.toolCall.arguments }],
      ...(reply.content ? { content: reply.content } : {}),
    };
  if (reply.text !== undefined) return { text: reply.text };
  return { json: reply.json };
}

/**
 * Installs scenario rules on the fake OpenAI server with the same matching as the offline demo's scripted model (so
 * the e2e suites also prove the recorded demo scenario), each answering any number of times, in order.
 */
export function installRules(
  fake: FakeOpenAIServer,
  rules: readonly ScenarioRule[],
  /** A delay for each answer (e.g. random, so concurrent goals interleave), none by default. */
  delayMs?: () => number,
): void {
  for (const rule of rules) {
    const when = rule.when ?? {};
    const where = (r: RecordedRequest) => {
      const text = messagesText(r.body);
      if ((when.contains ?? []).some((s) => !text.includes(s))) return false;
      if ((when.absent ?? []).some((s) => text.includes(s))) return false;
      return !when.anyOf || when.anyOf.some((s) => text.includes(s));
    };
    fake.always(
      {
        ...(when.schema ? { schemaName: when.schema } : {}),
        ...(when.tool
          ? { toolNames: (names: readonly string[]) => names.includes(when.tool ?? '') }
          : when.schema
            ? {}
            : { kind: 'text' as const }),
        where,
      },
      delayMs ? () => ({ delayMs: delayMs(), then: toReply(rule.reply) }) : toReply(rule.reply),
    );
  }
}

/** A model answer to AspectCreateTool's metadata prompt: a minimal aspect draft. */
export const aspectDraft = (description: string) => ({
  description,
  children_keys: [],
  dependencies: [],
  required_fields: [{ name: 'name', type: 'string', description: 'display name' }],
  optional_fields: [],
  extensibility: { description: 'free', examples: [] },
  constraints: [],
  extra_sections: [],
});

/** The demo scenario's request (the 余归 goal of the seeds). */
export const DEMO_REQUEST = 'Create a protagonist named 余归 and link her to the Azure Sect';

/**
 * Makes AspectCreateTool's model call for the aspect whose prompt mentions `marker` answer after 3 s (once), so a
 * crash can land while a runner works on that step; resolves when that call arrives.
 */
export function holdAspectAnswer(fake: FakeOpenAIServer, marker: string, description: string): Promise<void> {
  return new Promise((resolve) => {
    fake.once(
      { schemaName: 'aspect_metadata', where: (r) => JSON.stringify(r.body).includes(marker) },
      () => {
        resolve();
        return { delayMs: 3_000, then: { json: aspectDraft(description) } };
      },
    );
  });
}
