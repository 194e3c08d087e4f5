import { ScriptedChatModel } from '@novelrag/agenturn/testing';
import { ExplorationGoalDecider } from '../deciders/exploration-goal-decider';
import { BacklogGoalDecider } from '../deciders/backlog-goal-decider';
import { ActionDetermineLoop } from './action-determine-loop';
import { LlmGoalTranslator } from './goal-translator';
import { InMemoryResources } from './test-support/in-memory-resources';
import {
  RecordingObserver,
  approve,
  assess,
  assessmentOf,
  callTool,
  discover,
  refine,
  relevance,
} from './test-support/script';
import { catalog, ctx, progress, renderer, world } from './test-support/world';

const systemOf = (model: ScriptedChatModel) => model.calls.map((c) => c.messages[0]?.content ?? '');

describe.each([
  ['en', /Resource segment #2/, 'Language: write every value you generate in English'],
  ['zh', /资源片段 #2/, 'Language: write every value you generate in Chinese'],
])('templates in %s', (lang, segmentHeading, directive) => {
  it('render every phase of the loop with the language directive', async () => {
    const model = new ScriptedChatModel([
      assess(),
      discover({ search_queries: ['余归'], expand_tools: ['create_element'] }),
      relevance({ exclude_properties: [{ uri: '/character/yu_gui', property: 'secret' }] }),
      discover(),
      callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
      refine(assessmentOf('link'), { search_terms: ['Azure'] }),
      discover(),
      callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
      approve(),
    ]);
    const loop = new ActionDetermineLoop({
      model,
      renderer: renderer(),
      resources: world(),
      lang,
      observer: new RecordingObserver(),
    });
    await loop.determineAction({
      beliefs: ['余归 is the heroine'],
      progress: progress(),
      tools: catalog(),
      ctx: ctx(),
    });
    model.assertDone();
    const prompts = systemOf(model);
    for (const p of prompts) expect(p.startsWith(directive)).toBe(true);
    expect(prompts[4]).toMatch(segmentHeading);
    if (lang === 'zh') {
      expect(prompts[0]).toContain('评估');
      expect(prompts[1]).toContain('已加载的上下文');
      expect(prompts[2]).toContain('相关程度');
      expect(prompts[4]).toContain('如何决定');
      expect(prompts[5]).toContain('待审查的决策');
      expect(prompts[4]).toContain('已隐藏的属性：secret');
    }
  });

  it('render the goal decider prompts', async () => {
    const model = new ScriptedChatModel([
      { kind: 'structured', respond: { goal: 'g', selected_entries: [1] } },
      { kind: 'structured', respond: { query_resources: [], search_queries: ['Azure'] } },
      { kind: 'structured', respond: { priority_concern: 'enrichment', reasoning: 'thin' } },
      { kind: 'structured', respond: { goal: 'g' } },
      { kind: 'structured', respond: { goal: 'g' } },
    ]);
    const resources = new InMemoryResources(
      [InMemoryResources.aspect('character')],
      [
        {
          uri: '/character/yu_gui',
          properties: { name: '余归' },
          relationships: { '/faction/x': ['member'] },
        },
      ],
      [
        {
          id: 'b1',
          priority: 5,
          content: { description: 'Name the sect master' },
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    );
    const options = { model, renderer: renderer(), lang, random: () => 0 };
    await new BacklogGoalDecider({ ...options, resources }).nextGoal(['a belief']);
    await new ExplorationGoalDecider({ ...options, resources }).nextGoal([]);
    await new ExplorationGoalDecider({ ...options, resources: new InMemoryResources() }).nextGoal([]);
    model.assertDone();
    const prompts = systemOf(model);
    if (lang === 'zh') {
      expect(prompts[0]).toContain('待办列表');
      expect(prompts[1]).toContain('该元素');
      expect(prompts[2]).toContain('被引用但不存在');
      expect(prompts[3]).toContain('重点：enrichment');
      expect(prompts[4]).toContain('完全是空的');
    } else {
      expect(prompts[3]).toContain('## Focus: enrichment');
    }
  });
});

describe('LlmGoalTranslator', () => {
  it('writes the goal in the user language, with beliefs and the last 5 interactions, and reports the call', async () => {
    const observer = new RecordingObserver();
    const model = new ScriptedChatModel([
      {
        kind: 'structured',
        schemaName: 'GoalTranslation',
        purpose: 'translate',
        respond: { goal: '  创建主角余归，并将她与青云宗关联。 ' },
      },
    ]);
    let asked = 0;
    const goal = await new LlmGoalTranslator({ model, renderer: renderer(), lang: 'zh', observer }).translate(
      '创建主角余归，并把她和青云宗联系起来',
      ['武侠世界'],
      {
        formatRecent: (n) => {
          asked = n;
          return 'user: 你好';
        },
      },
    );
    model.assertDone();
    expect(goal).toMatchObject({
      description: '创建主角余归，并将她与青云宗关联。',
      source: { kind: 'user', request: '创建主角余归，并把她和青云宗联系起来' },
    });
    expect(asked).toBe(5);
    const system = model.calls[0]?.messages[0]?.content ?? '';
    expect(system).toMatch(/^Language: reply in the language of the user's own input/);
    expect(system).toContain('- 武侠世界');
    expect(observer.of('llm')[0]?.info).toMatchObject({ purpose: 'goal_translation', ok: true });
  });

  it('rejects an empty goal as invalid model output', async () => {
    const model = new ScriptedChatModel([{ kind: 'structured', respond: { goal: '   ' } }]);
    await expect(
      new LlmGoalTranslator({ model, renderer: renderer() }).translate('x', []),
    ).rejects.toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
  });
});
