import {
  type ChatMessage,
  type Decision,
  type ExecutionContext,
  type Goal,
  type OperationOutcome,
  type SchematicTool,
  type ToolCallReply,
  type ToolCatalog,
  type ToolDefinition,
  operationPlan,
  resolution,
} from '@novelrag/agenturn';
import { type ActionDecision, FinalizeArgs, type PursuitAssessment } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import { z } from 'zod';
import { FINALIZE_DEFINITION, FINALIZE_TOOL } from './finalize-tool';
import { type ModelCalls, isModelOutputError } from './model-calls';
import type { ContextSnapshot } from './workspace';
import { segmentViews, stepViews, toolViews } from './views';

/** Attempts of one decision, the first included: invalid calls are fed back this many times minus one. */
export const DECISION_ATTEMPTS = 3;

const NO_ANALYSIS = 'The model gave no situation analysis with its call.';

export interface DecisionInput {
  readonly goal: Goal;
  readonly assessment: PursuitAssessment;
  readonly steps: readonly OperationOutcome[];
  readonly snapshot: ContextSnapshot;
  readonly catalog: ToolCatalog;
  readonly expandedTools: readonly string[];
  readonly beliefs: readonly string[];
  readonly ctx: ExecutionContext;
  readonly signal?: AbortSignal;
}

/** A usable decision, or the failed resolution the step degrades to when the model never produced one. */
export type DecisionOutcome =
  | {
      readonly kind: 'decided';
      readonly decision: ActionDecision;
      /** The decision as a plan; further independent calls of the same reply ride along as its `group`. */
      readonly planned: Decision;
    }
  | { readonly kind: 'invalid'; readonly planned: Decision };

type Checked =
  { ok: true; decision: ActionDecision; more: readonly ActionDecision[] } | { ok: false; problem: string };

/**
 * The action decision by native tool calling: the expanded, available tools (their JSON input schemas) plus `Finalize`,
 * tool choice required. The first call counts; when it runs a tool, the reply's further tool calls (up to `maxCalls` in
 * all; a later `Finalize` is ignored) are independent calls run at the same time. A reply without a call, a call to a tool that is not offered, or
 * arguments that do not match the tool's schema are fed back and retried (bounded); then the step degrades to a
 * `failed` resolution that says why. Model misbehaviour never throws out of here.
 */
export class ActionDecider {
  private readonly validators = new Map<string, z.ZodType | null>();

  constructor(
    private readonly calls: ModelCalls,
    private readonly lang: string | undefined,
    private readonly attempts = DECISION_ATTEMPTS,
    /** Most tool calls one decision may run at the same time (1: only the first call counts). */
    private readonly maxCalls = 1,
  ) {}

  async decide(input: DecisionInput): Promise<DecisionOutcome> {
    const views = toolViews(input.catalog, input.expandedTools, false);
    const callable = views.expanded
      .map((v) => input.catalog.get(v.name))
      .filter((t): t is SchematicTool => t !== undefined && t.name !== FINALIZE_TOOL);
    const definitions: ToolDefinition[] = [...callable.map(definitionOf), FINALIZE_DEFINITION];
    let messages: ChatMessage[] = this.calls.messages({
      template: 'decide_action',
      directive: contentDirective(this.lang, input.beliefs),
      instruction:
        this.maxCalls > 1
          ? `Decide the next action by calling one tool, or up to ${this.maxCalls} tools at once when they are independent of each other.`
          : 'Decide the next action by calling exactly one tool.',
      variables: {
        goal: input.goal.description,
        assessment: input.assessment,
        steps: stepViews(input.steps),
        segments: segmentViews(input.snapshot.segments),
        tools: views,
      },
    });
    let lastProblem = 'no answer';
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      let reply: ToolCallReply;
      try {
        reply = await this.calls.callTools('action_decision', messages, definitions, input.signal);
      } catch (err) {
        if (!isModelOutputError(err)) throw err;
        lastProblem = err instanceof Error ? err.message : 'invalid output';
        break; // the adapter already retried with feedback
      }
      const checked = this.check(reply, callable);
      if (checked.ok) return { kind: 'decided', decision: checked.decision, planned: groupOf(checked) };
      lastProblem = checked.problem;
      input.ctx.warning(`Action decision attempt ${attempt} was invalid: ${checked.problem}`);
      messages = [
        ...messages,
        { role: 'assistant', content: describeReply(reply) },
        {
          role: 'user',
          content: `${checked.problem} Call exactly one of: ${definitions.map((d) => d.name).join(', ')}.`,
        },
      ];
    }
    return {
      kind: 'invalid',
      planned: resolution(
        'failed',
        `I could not decide on a valid next action: the model's answers stayed invalid (${lastProblem}).`,
        'Invalid action decision',
      ),
    };
  }

  private check(reply: ToolCallReply, callable: readonly SchematicTool[]): Checked {
    const first = this.checkCall(reply, 0, callable);
    if (!first.ok || first.decision.decision_type === 'finalize') return first;
    const more: ActionDecision[] = [];
    for (let i = 1; i < reply.toolCalls.length && more.length + 1 < this.maxCalls; i += 1) {
      if (reply.toolCalls[i]?.name === FINALIZE_TOOL) continue;
      const next = this.checkCall(reply, i, callable);
      if (!next.ok) return next;
      more.push(next.decision);
    }
    return { ok: true, decision: first.decision, more };
  }

  private checkCall(reply: ToolCallReply, at: number, callable: readonly SchematicTool[]): Checked {
    const call = reply.toolCalls[at];
    const analysis = reply.content?.trim() || NO_ANALYSIS;
    if (call === undefined) return { ok: false, problem: 'Your answer made no tool call.' };
    if (call.name === FINALIZE_TOOL) {
      const args = FinalizeArgs.safeParse({ evidence: [], gaps: [], ...call.arguments });
      if (!args.success)
        return { ok: false, problem: `Invalid ${FINALIZE_TOOL} arguments: ${z.prettifyError(args.error)}.` };
      return {
        ok: true,
        decision: { decision_type: 'finalize', situation_analysis: analysis, ...args.data },
        more: [],
      };
    }
    const tool = callable.find((t) => t.name === call.name);
    if (tool === undefined)
      return { ok: false, problem: `There is no callable tool named "${call.name}" in this decision.` };
    const validator = this.validatorOf(tool);
    if (validator) {
      const args = validator.safeParse(call.arguments);
      if (!args.success)
        return { ok: false, problem: `Invalid arguments for ${tool.name}: ${z.prettifyError(args.error)}.` };
    }
    return {
      ok: true,
      decision: {
        decision_type: 'execute',
        situation_analysis: analysis,
        tool: tool.name,
        params: { ...call.arguments },
        confidence: 'high',
        reasoning: reply.content?.trim() ?? '',
      },
      more: [],
    };
  }

  /** The tool's JSON input schema as zod; null when it cannot be converted (the tool then validates its own input). */
  private validatorOf(tool: SchematicTool): z.ZodType | null {
    if (!this.validators.has(tool.name)) {
      let validator: z.ZodType | null = null;
      try {
        validator = z.fromJSONSchema(tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
      } catch {
        validator = null;
      }
      this.validators.set(tool.name, validator);
    }
    return this.validators.get(tool.name) ?? null;
  }
}

/** A tool as the model is offered it: its description (with prerequisites and output) and its JSON input schema. */
export function definitionOf(tool: SchematicTool): ToolDefinition {
  const parts = [tool.description];
  if (tool.prerequisites) parts.push(`Prerequisites: ${tool.prerequisites}`);
  if (tool.outputDescription) parts.push(`Expected output: ${tool.outputDescription}`);
  const schema =
    Object.keys(tool.inputSchema).length > 0 ? tool.inputSchema : { type: 'object', properties: {} };
  return { name: tool.name, description: parts.join('\n\n'), parameters: schema };
}

/** execute → OperationPlan, finalize → Resolution (the situation analysis is the reason either way). */
export function plannedOf(decision: ActionDecision): Decision {
  switch (decision.decision_type) {
    case 'execute':
      return operationPlan(decision.tool, decision.params, decision.situation_analysis);
    case 'finalize':
      return resolution(decision.status, decision.response, decision.situation_analysis);
  }
}

/** The first call's plan, with the further calls of the same reply as its group. */
function groupOf(checked: { decision: ActionDecision; more: readonly ActionDecision[] }): Decision {
  const planned = plannedOf(checked.decision);
  const group = checked.more.map(plannedOf).filter((d) => d.kind === 'operation');
  return planned.kind === 'operation' && group.length > 0 ? { ...planned, group } : planned;
}

function describeReply(reply: ToolCallReply): string {
  const calls = reply.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join('; ');
  return [reply.content ?? '', calls === '' ? '(no tool call)' : `Tool call: ${calls}`]
    .filter((s) => s !== '')
    .join('\n');
}
