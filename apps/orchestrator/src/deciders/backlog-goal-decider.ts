import {
  type Goal,
  type GoalDecider,
  type InteractionHistory,
  ModelOutputError,
  autonomousGoal,
} from '@novelrag/agenturn';
import type { BacklogEntry } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import { z } from 'zod';
import { ModelCalls } from '../loop/model-calls';
import type { GoalDeciderOptions } from './decider-options';

/** Entries shown to the model (as the original). */
export const BACKLOG_SHOWN = 20;
const HISTORY_SHOWN = 5;

const BacklogGoal = z.object({
  goal: z.string().describe('A self-contained goal: copy every URI and identifier it needs'),
  selected_entries: z.array(z.number().int()).describe('1-based numbers of the entries the goal covers'),
});

function describeEntry(entry: BacklogEntry): string {
  const { description, ...rest } = entry.content;
  const text = typeof description === 'string' ? description : JSON.stringify(entry.content);
  const extras =
    typeof description === 'string' && Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  return `${text}${extras}`;
}

/**
 * Turns the most important backlog entries into one self-contained goal and removes the entries it covers (the
 * backlog is not available downstream, so the goal must carry every URI and id). Null when the backlog is empty.
 */
export class BacklogGoalDecider implements GoalDecider {
  readonly name = 'backlog';
  private readonly calls: ModelCalls;

  constructor(private readonly options: GoalDeciderOptions) {
    this.calls = new ModelCalls(options.model, options.renderer, options.observer, options.lang);
  }

  async nextGoal(
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal | null> {
    const { entries } = await this.options.resources.backlogList({ limit: BACKLOG_SHOWN }, signal);
    if (entries.length === 0) return null;
    const answer = await this.calls.structured(
      'goal_decider',
      {
        template: 'goal_from_backlog',
        directive: contentDirective(this.options.lang, beliefs),
        instruction: 'Choose the backlog entries to work on and write the goal.',
        variables: {
          entries: entries.map((e, i) => ({ number: i + 1, priority: e.priority, text: describeEntry(e) })),
          beliefs: [...beliefs],
          history: history?.formatRecent(HISTORY_SHOWN) ?? '',
        },
      },
      BacklogGoal,
      'BacklogGoal',
      signal,
    );
    const description = answer.goal.trim();
    if (description === '') {
      throw new ModelOutputError({
        issues: [{ path: 'goal', message: 'empty goal' }],
        rawOutputLength: 0,
        attempts: 1,
        purpose: 'goal_decider',
      });
    }
    const valid = [...new Set(answer.selected_entries)].filter((n) => n >= 1 && n <= entries.length);
    const selected = (valid.length > 0 ? valid : [1])
      .map((n) => entries[n - 1])
      .filter((e): e is BacklogEntry => e !== undefined);
    await this.options.resources.backlogRemove({ ids: selected.map((e) => e.id) }, signal);
    const context = `Based on backlog entries: ${selected.map((e) => `(priority=${e.priority}) ${describeEntry(e).slice(0, 80)}`).join('; ')}`;
    return autonomousGoal(description, this.name, context);
  }
}
