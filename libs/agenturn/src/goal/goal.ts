/** Why a goal exists: a user asked for it, or an autonomous decider chose it. `createdAt` is an ISO-8601 timestamp. */
export type GoalSource =
  | { readonly kind: 'user'; readonly request: string; readonly createdAt: string }
  | {
      readonly kind: 'autonomous';
      readonly decider: string;
      readonly context?: string;
      readonly createdAt: string;
    };

/** What the agent pursues: a self-contained description plus where it came from. */
export interface Goal {
  readonly description: string;
  readonly source: GoalSource;
}

/** `UserRequest(<text>)` or `Autonomous[<decider>](<context>)`, the form the prompts show. */
export function describeGoalSource(source: GoalSource): string {
  switch (source.kind) {
    case 'user':
      return `UserRequest(${source.request})`;
    case 'autonomous':
      return `Autonomous[${source.decider}](${source.context ?? ''})`;
  }
}

/** Two lines, `Goal: …` and `Source: …`, as rendered into prompts and logs. */
export function describeGoal(goal: Goal): string {
  return `Goal: ${goal.description}\nSource: ${describeGoalSource(goal.source)}`;
}

export function userGoal(description: string, request: string, createdAt: Date = new Date()): Goal {
  return { description, source: { kind: 'user', request, createdAt: createdAt.toISOString() } };
}

export function autonomousGoal(
  description: string,
  decider: string,
  context?: string,
  createdAt: Date = new Date(),
): Goal {
  return {
    description,
    source: {
      kind: 'autonomous',
      decider,
      ...(context === undefined ? {} : { context }),
      createdAt: createdAt.toISOString(),
    },
  };
}
