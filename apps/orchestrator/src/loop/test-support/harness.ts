import { ModelOutputError } from '@novelrag/agenturn';
import { ScriptedChatModel, type ScriptEntry } from '@novelrag/agenturn/testing';
import { ActionDetermineLoop, type ActionDetermineLoopOptions } from '../action-determine-loop';
import { InMemoryResources } from './in-memory-resources';
import { RecordingObserver } from './script';
import { catalog, ctx, progress, renderer, world } from './world';

/** A loop over the unit-test world with a strict scripted model, a recording observer and a recording context. */
export function setup(script: ScriptEntry[], options: Partial<ActionDetermineLoopOptions> = {}) {
  const model = new ScriptedChatModel(script);
  const resources = options.resources instanceof InMemoryResources ? options.resources : world();
  const observer = new RecordingObserver();
  const loop = new ActionDetermineLoop({ model, renderer: renderer(), resources, observer, ...options });
  const context = ctx();
  const run = (description?: string, signal?: AbortSignal) =>
    loop.determineAction({
      beliefs: [],
      progress: progress(description),
      tools: catalog(),
      ctx: context,
      ...(signal ? { signal } : {}),
    });
  return { model, resources, observer, loop, context, run };
}

/** The system prompt of the n-th model call. */
export function prompt(model: ScriptedChatModel, n: number): string {
  return model.calls[n]?.messages[0]?.content ?? '';
}

export const outputError = (purpose: string) =>
  new ModelOutputError({
    issues: [{ path: '(root)', message: 'output is not valid JSON' }],
    rawOutputLength: 9,
    attempts: 3,
    purpose,
    reason: 'invalid JSON',
  });
