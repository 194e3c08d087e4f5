import { type InteractionHistory, toErrorInfo } from '@novelrag/agenturn';
import { ErrorCode, type ErrorEnvelope, type GoalRecord, errorEnvelope } from '@novelrag/contracts';
import { LlmGoalTranslator } from '../loop';
import type { GoalTrace } from './trace';
import type { PursuitDeps } from './types';

export interface TranslationInput {
  readonly record: GoalRecord;
  readonly deps: Pick<PursuitDeps, 'model' | 'renderer' | 'translator'>;
  readonly trace: GoalTrace;
  readonly history: InteractionHistory;
  readonly lang: string;
  readonly signal: AbortSignal;
}

/** The goal a request was turned into, or why it could not be. */
export type Translation = { readonly goal: string } | { readonly error: ErrorEnvelope };

/** Turns the goal's request into a goal statement (once per goal: the caller checkpoints it). Never rejects. */
export async function translateRequest(input: TranslationInput): Promise<Translation> {
  const { deps, record } = input;
  const options = { model: deps.model, renderer: deps.renderer, lang: input.lang, observer: input.trace };
  const translator = deps.translator ? deps.translator(options) : new LlmGoalTranslator(options);
  try {
    const translated = await translator.translate(
      record.request ?? '',
      record.beliefs,
      input.history,
      input.signal,
    );
    return { goal: translated.description };
  } catch (err) {
    const info = toErrorInfo(err);
    const code = ErrorCode.safeParse(info.code);
    return { error: errorEnvelope(code.success ? code.data : 'INTERNAL', info.message) };
  }
}
