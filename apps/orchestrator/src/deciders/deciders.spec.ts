import { type Goal, type GoalDecider, autonomousGoal } from '@novelrag/agenturn';
import { ScriptedChatModel } from '@novelrag/agenturn/testing';
import type { BacklogEntry, OperationHistoryEntry } from '@novelrag/contracts';
import { InMemoryResources } from '../loop/test-support/in-memory-resources';
import { RecordingObserver } from '../loop/test-support/script';
import { renderer } from '../loop/test-support/world';
import { BacklogGoalDecider } from './backlog-goal-decider';
import { CompositeGoalDecider } from './composite-goal-decider';
import { ExplorationGoalDecider } from './exploration-goal-decider';
import { RecencyWeighter, weightedIndex } from './weighted';

/** A fixed sequence of "random" numbers (seeded, deterministic). */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length] ?? 0;
}

function entry(id: string, priority: number, description: string): BacklogEntry {
  return {
    id,
    priority,
    content: { description, type: 'plot_thread' },
    createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function touched(uri: string): OperationHistoryEntry {
  return {
    stack: 'undo',
    description: 'edit',
    group: null,
    operation: { type: 'property', uri, data: {} },
    at: '2026-01-01T00:00:00.000Z',
  };
}

const prompt = (model: ScriptedChatModel, n: number) => model.calls[n]?.messages[0]?.content ?? '';

describe('BacklogGoalDecider', () => {
  const backlog = () =>
    new InMemoryResources(
      [],
      [],
      [
        entry('b1', 9, 'Give /character/yu_gui a rival'),
        entry('b2', 5, 'Name the sect master'),
        entry('b3', 2, 'Map the valley'),
      ],
    );

  it('turns the chosen entries into a self-contained goal and removes them', async () => {
    const resources = backlog();
    const observer = new RecordingObserver();
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'BacklogGoal',
        respond: { goal: 'A rival of /character/yu_gui exists', selected_entries: [1, 2, 2, 9] },
      },
    ]);
    const decider = new BacklogGoalDecider({ model, renderer: renderer(), resources, observer });
    const goal = await decider.nextGoal(['A wuxia world'], { formatRecent: () => 'user: next' });
    model.assertDone();
    expect(goal?.description).toBe('A rival of /character/yu_gui exists');
    expect(goal?.source).toMatchObject({
      kind: 'autonomous',
      decider: 'backlog',
      context:
        'Based on backlog entries: (priority=9) Give /character/yu_gui a rival {"type":"plot_thread"}; (priority=5) Name the sect master {"type":"plot_thread"}',
    });
    expect(resources.removedBacklog).toEqual(['b1', 'b2']);
    expect(prompt(model, 0)).toMatch(/1\. \(priority 9\) Give \/character\/yu_gui a rival/);
    expect(prompt(model, 0)).toContain('- A wuxia world');
    expect(observer.of('llm')[0]?.info.purpose).toBe('goal_decider');
  });

  it('falls back to entry #1 when the selection is invalid, and returns null for an empty backlog', async () => {
    const resources = backlog();
    const model = new ScriptedChatModel([
      { kind: 'structured', respond: { goal: 'x', selected_entries: [0, 7] } },
    ]);
    await new BacklogGoalDecider({ model, renderer: renderer(), resources }).nextGoal([]);
    expect(resources.removedBacklog).toEqual(['b1']);
    const empty = new ScriptedChatModel([]);
    expect(
      await new BacklogGoalDecider({
        model: empty,
        renderer: renderer(),
        resources: new InMemoryResources(),
      }).nextGoal([]),
    ).toBeNull();
    empty.assertDone();
  });
});

describe('ExplorationGoalDecider', () => {
  it('bootstrap: an empty repository gets its first aspect from the beliefs', async () => {
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'ExplorationGoal',
        respond: { goal: 'A character aspect exists with 余归 in it' },
      },
    ]);
    const goal = await new ExplorationGoalDecider({
      model,
      renderer: renderer(),
      resources: new InMemoryResources(),
    }).nextGoal(['余归 is the heroine']);
    model.assertDone();
    expect(goal?.source).toMatchObject({ decider: 'exploration', context: 'phase=bootstrap' });
    expect(prompt(model, 0)).toContain('completely\nempty');
  });

  it('populate: an empty aspect is chosen with recency weighting', async () => {
    const aspects = [InMemoryResources.aspect('character'), InMemoryResources.aspect('faction')];
    const history = [touched('/character'), touched('/character')]; // character weighs 0.5, faction 1
    const run = async (r: number) => {
      const model = new ScriptedChatModel([{ kind: 'structured', respond: { goal: 'seed it' } }]);
      const goal = await new ExplorationGoalDecider({
        model,
        renderer: renderer(),
        resources: new InMemoryResources(aspects, [], [], history),
        random: sequence(r),
      }).nextGoal([]);
      expect(prompt(model, 0)).toContain('## Focus: populate');
      return goal?.source.kind === 'autonomous' ? goal.source.context : '';
    };
    expect(await run(0.2)).toBe('phase=populate, aspect=character'); // 0.3 of 1.5 < 0.5
    expect(await run(0.5)).toBe('phase=populate, aspect=faction'); // 0.75 of 1.5
  });

  it('explore: expands the context around a chosen element, analyses the gap and writes a goal for it', async () => {
    const resources = new InMemoryResources(
      [InMemoryResources.aspect('character'), InMemoryResources.aspect('faction')],
      [
        {
          uri: '/character/yu_gui',
          properties: { name: '余归' },
          relationships: { '/faction/azure_sect': ['disciple of'], '/location/valley': ['born in'] },
        },
        { uri: '/faction/azure_sect', properties: { name: 'Azure Sect' } },
      ],
      [],
      [touched('/faction/azure_sect'), touched('/faction/azure_sect')],
    );
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'ExplorationContext',
        respond: { query_resources: ['/faction/azure_sect', '/character/yu_gui'], search_queries: ['Azure'] },
      },
      {
        kind: 'structured',
        schemaName: 'ConceptGapAnalysis',
        respond: { priority_concern: 'creation_aspect', reasoning: 'no location aspect for the valley' },
      },
      {
        kind: 'structured',
        schemaName: 'ExplorationGoal',
        respond: { goal: 'A location aspect holds the valley where 余归 was born' },
      },
    ]);
    // weights: yu_gui 0.7·1 + 0.3·1 = 1; azure_sect 0.7·0.5 + 0.3·1 = 0.65 → 0.1 picks yu_gui
    const goal = await new ExplorationGoalDecider({
      model,
      renderer: renderer(),
      resources,
      random: sequence(0.1),
    }).nextGoal([]);
    model.assertDone();
    expect(goal?.source).toMatchObject({
      context: 'phase=explore, element=/character/yu_gui, aspect=character, focus=creation_aspect',
    });
    expect(resources.searches).toEqual([{ query: 'Azure', limit: 5 }]);
    const gapPrompt = prompt(model, 1);
    expect(gapPrompt).toMatch(/Referenced but missing:\n- \/location\/valley \(born in\)/);
    expect(gapPrompt).toContain('Loaded resources: /faction/azure_sect, /character');
    expect(prompt(model, 2)).toContain('no location aspect for the valley');
  });
});

describe('CompositeGoalDecider', () => {
  const fixed = (goal: Goal | null): GoalDecider & { calls: number } => {
    const d = {
      calls: 0,
      nextGoal: async () => {
        d.calls += 1;
        return goal;
      },
    };
    return d;
  };
  const backlogOf = (n: number) =>
    new InMemoryResources(
      [],
      [],
      Array.from({ length: n }, (_, i) => entry(`b${i}`, 5, `item ${i}`)),
    );

  it('weighs the backlog by its size and falls back when the chosen decider has nothing', async () => {
    const backlog = fixed(autonomousGoal('from backlog', 'backlog'));
    const exploration = fixed(autonomousGoal('from exploration', 'exploration'));
    // 3 entries: backlog weight 2·1 = 2 vs 2 → 0.25 picks the backlog, 0.75 exploration
    expect(
      (
        await new CompositeGoalDecider({
          backlog,
          exploration,
          resources: backlogOf(3),
          random: sequence(0.25),
        }).nextGoal([])
      )?.description,
    ).toBe('from backlog');
    expect(
      (
        await new CompositeGoalDecider({
          backlog,
          exploration,
          resources: backlogOf(3),
          random: sequence(0.75),
        }).nextGoal([])
      )?.description,
    ).toBe('from exploration');
    // 9 entries: 2·min(3, 2) = 4 vs 2 → 0.6 (point 3.6) still the backlog
    expect(
      (
        await new CompositeGoalDecider({
          backlog,
          exploration,
          resources: backlogOf(9),
          random: sequence(0.6),
        }).nextGoal([])
      )?.description,
    ).toBe('from backlog');
    // empty backlog: weight 0, never asked
    const before = backlog.calls;
    expect(
      (
        await new CompositeGoalDecider({
          backlog,
          exploration,
          resources: backlogOf(0),
          random: sequence(0),
        }).nextGoal([])
      )?.description,
    ).toBe('from exploration');
    expect(backlog.calls).toBe(before);
  });

  it('tries the others when one returns null, and returns null when all do', async () => {
    const empty = fixed(null);
    const exploration = fixed(autonomousGoal('explore', 'exploration'));
    expect(
      (
        await new CompositeGoalDecider({
          backlog: empty,
          exploration,
          resources: backlogOf(3),
          random: sequence(0.1),
        }).nextGoal([])
      )?.description,
    ).toBe('explore');
    expect(empty.calls).toBe(1);
    expect(
      await new CompositeGoalDecider({
        backlog: fixed(null),
        exploration: fixed(null),
        resources: backlogOf(3),
        random: sequence(0.1),
      }).nextGoal([]),
    ).toBeNull();
  });
});

describe('recency weighting', () => {
  it('weighs 1/(1 + 0.5c) over the last 10 operations and blends 70/30 for elements', () => {
    const w = new RecencyWeighter([
      touched('/character/yu_gui'),
      touched('/character/yu_gui'),
      touched('/character'),
      ...Array.from({ length: 10 }, () => touched('/faction')),
    ]);
    expect(w.weightOf('/character/yu_gui')).toBeCloseTo(0.5);
    expect(w.aspectWeight('character')).toBeCloseTo(1 / 1.5);
    expect(w.elementWeight('/character/yu_gui', 'character')).toBeCloseTo(0.7 * 0.5 + 0.3 / 1.5);
    expect(w.aspectWeight('faction')).toBeCloseTo(1 / (1 + 0.5 * 7)); // only 7 of the 10 faction edits are recent
    expect(weightedIndex([0, 0], () => 0.5)).toBe(-1);
    expect(weightedIndex([1, 3], () => 0.99)).toBe(1);
  });
});
