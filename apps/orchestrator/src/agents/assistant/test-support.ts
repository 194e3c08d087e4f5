// Unit-test support of the assistant kind: an AgentContext over a strict scripted model, in-process tools, a recording
// trace and checkpoints that keep what was written (so a test can resume from it).
import {
  InProcessToolExecutor,
  type MemoryPort,
  type OperationOutcome,
  type SchematicTool,
  ToolCatalog,
  type ToolExecutor,
  userGoal,
} from '@novelrag/agenturn';
import { RecordingExecutionContext, ScriptedChatModel, type ScriptEntry } from '@novelrag/agenturn/testing';
import { type GoalRecord, SCHEMA_VERSION, type TraceEvent, emptyWorkspace } from '@novelrag/contracts';
import type { GoalTraceDraft } from '../../pursuit/trace';
import { RecordingObserver } from '../../loop/test-support/script';
import { renderer } from '../../loop/test-support/world';
import type { AgentContext, AgentRun } from '../agent-kind';
import { AssistantAgent } from './assistant-agent';
import type { AssistantSettings } from './assistant-run';

type Emitted = GoalTraceDraft & { kind: TraceEvent['kind'] };

export interface AssistantHarness {
  readonly model: ScriptedChatModel;
  readonly events: Emitted[];
  readonly record: () => GoalRecord;
  readonly run: AgentRun;
  readonly pursue: AgentRun['pursue'];
  readonly abort: AbortController;
  readonly context: RecordingExecutionContext;
  /** The kinds of the events emitted so far, in order. */
  kinds(prefix?: string): string[];
}

export interface HarnessOptions {
  readonly tools: readonly SchematicTool[];
  readonly script: readonly ScriptEntry[];
  readonly settings?: Partial<AssistantSettings>;
  readonly memory?: MemoryPort;
  readonly request?: string;
  /** Resume from this record (a previous harness's `record()`). */
  readonly from?: GoalRecord;
  readonly executed?: readonly OperationOutcome[];
  /** Runs the calls (default: the tools in process); `tools` then only describe them to the model. */
  readonly executor?: ToolExecutor;
}

export function baseRecord(request: string): GoalRecord {
  const now = new Date().toISOString();
  return {
    schemaVersion: SCHEMA_VERSION,
    goalId: 'g-assistant',
    threadId: 't-assistant',
    status: 'running',
    source: 'user',
    agent: 'assistant',
    goal: request,
    request,
    lang: 'en',
    beliefs: [],
    limits: {},
    steps: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
}

/** Starts an assistant pursuit in process. Steps recorded by `checkpoints.steps` become the record's `steps`. */
export function startAssistant(options: HarnessOptions): AssistantHarness & { executed: OperationOutcome[] } {
  const request = options.request ?? 'Check the weather in Beijing and Shanghai and give clothing advice';
  const model = new ScriptedChatModel(options.script);
  const events: Emitted[] = [];
  const catalog = new ToolCatalog(options.tools);
  const executor = options.executor ?? new InProcessToolExecutor(catalog);
  const abort = new AbortController();
  const context = new RecordingExecutionContext();
  let record: GoalRecord = options.from ?? baseRecord(request);
  const executed: OperationOutcome[] = [...(options.executed ?? [])];
  const started: { run?: AgentRun } = {};
  const snapshot = () => ({ ...(started.run?.checkpointData() ?? {}) });
  const ctx: AgentContext = {
    goal: userGoal(request, request),
    resume: { executedSteps: [...executed], record },
    beliefs: [],
    lang: 'en',
    history: { formatRecent: () => '' },
    historyText: '',
    workspace: emptyWorkspace(),
    tools: catalog,
    findTools: () => Promise.resolve(),
    executor,
    execution: context,
    trace: new RecordingObserver(),
    model,
    renderer: renderer(),
    resources: {} as AgentContext['resources'],
    limits: {
      maxSteps: 20,
      wallClockMs: 60_000,
      startedAt: Date.now(),
      maxIterations: 3,
      minIterations: 0,
    },
    signal: abort.signal,
    hooks: {},
    checkpoints: {
      save: () => {
        record = { ...record, ...snapshot() };
        return Promise.resolve();
      },
      steps: (_before, group) => {
        executed.push(...group);
        record = { ...record, ...snapshot() };
        return Promise.resolve();
      },
    },
    emit: (event) => events.push(event as Emitted),
  };
  const run = new AssistantAgent({
    ...options.settings,
    ...(options.memory ? { memory: options.memory } : {}),
  }).start(ctx);
  started.run = run;
  return {
    model,
    events,
    record: () => record,
    run,
    pursue: () => run.pursue(),
    abort,
    context,
    executed,
    kinds: (prefix = 'assistant.') => events.map((e) => e.kind).filter((k) => k.startsWith(prefix)),
  };
}

/** A thought that calls the given tools (one task each) in one round. */
export function thinkCalls(...tasks: [tool: string, instruction: string][]): ScriptEntry {
  return {
    kind: 'structured',
    schemaName: 'AssistantThought',
    respond: {
      analysis: 'lookups needed',
      plan: tasks.map(([tool, instruction]) => `${tool}: ${instruction}`).concat('answer'),
      action: 'create_call_tool_tasks',
      tasks: tasks.map(([tool_name, tool_instruction]) => ({ tool_name, tool_instruction })),
      output_instruction: '',
    },
  };
}

export function thinkAnswer(instruction = 'answer the request'): ScriptEntry {
  return {
    kind: 'structured',
    schemaName: 'AssistantThought',
    respond: {
      analysis: 'enough is known',
      plan: ['answer'],
      action: 'output_content',
      tasks: [],
      output_instruction: instruction,
    },
  };
}

export function input(tool: string, args: Record<string, unknown>): ScriptEntry {
  return {
    kind: 'tools',
    purpose: 'tool_input',
    respond: { content: null, toolCalls: [{ id: `c-${tool}`, name: tool, arguments: args }] },
  };
}

/** The streamed answer, then its follow-up (suggested next inputs, summary, facts): the two calls of `outputting`. */
export function answer(content: string, suggestions: string[] = ['What about tomorrow?']): ScriptEntry[] {
  return [
    { kind: 'stream', purpose: 'output', respond: content },
    {
      kind: 'structured',
      schemaName: 'AssistantFollowUp',
      respond: {
        suggested_next_inputs: suggestions,
        session_summary: `asked for advice; answered: ${content}`,
        facts: [],
      },
    },
  ];
}
