import { randomUUID } from 'node:crypto';
import { DEFAULT_WAIT_MS, flag, intOption, type ParsedCommand, stringOption } from '../args';
import { CLI_EXIT, usageError } from '../errors';
import { type AnswerPolicy, followGoal } from '../follow';
import type { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';
import { GoalAccepted, NextGoalReply, PublicGoal } from '../responses';
import { type CommandHandler, goalRoute, print } from './command-handler';

function answerPolicy(cmd: ParsedCommand): AnswerPolicy {
  const yes = flag(cmd.values, 'yes');
  const no = flag(cmd.values, 'no');
  if (yes && no) throw usageError('--yes and --no exclude each other');
  return yes ? 'approve' : no ? 'decline' : 'ask';
}

/** Follows a goal (unless --detach) and turns its end into the exit status. */
async function followAndReport(
  client: GatewayClient,
  goalId: string,
  cmd: ParsedCommand,
  io: CliIo,
): Promise<number> {
  const json = cmd.global.json;
  if (flag(cmd.values, 'detach')) {
    if (!json) io.out(`follow it with: novelrag follow ${goalId}`);
    return CLI_EXIT.ok;
  }
  const goal = await followGoal(client, goalId, {
    io,
    json,
    verbose: flag(cmd.values, 'verbose'),
    answers: answerPolicy(cmd),
    waitMs: intOption(cmd.values, 'wait', 1_000, 24 * 60 * 60_000) ?? DEFAULT_WAIT_MS,
    pollMs: intOption(cmd.values, 'poll', 200, 600_000) ?? 5_000,
  });
  if (!json && goal.outcome === undefined) io.out(`goal ${goalId} ended ${goal.status}`);
  return goal.status === 'completed' ? CLI_EXIT.ok : CLI_EXIT.goalNotCompleted;
}

/** The body of `POST /v1/goals` from the command's text and options. */
function goalBody(cmd: ParsedCommand, text: string): Record<string, unknown> {
  const maxSteps = intOption(cmd.values, 'max-steps', 1, 1_000);
  const beliefs = cmd.values['belief'];
  return {
    [flag(cmd.values, 'goal') ? 'goal' : 'request']: text,
    ...(stringOption(cmd.values, 'lang') ? { lang: stringOption(cmd.values, 'lang') } : {}),
    ...(stringOption(cmd.values, 'thread') ? { threadId: stringOption(cmd.values, 'thread') } : {}),
    ...(Array.isArray(beliefs) && beliefs.length ? { beliefs } : {}),
    ...(maxSteps ? { limits: { maxSteps } } : {}),
  };
}

/** `goal "<request>"`: submits the request (or goal) and follows it. */
export const submitGoal: CommandHandler = (cmd, client, io) => submitWith(cmd, client, io, {});

/** `chat "<message>"`: submits the message to the `assistant` agent kind and follows it. */
export const chat: CommandHandler = (cmd, client, io) => submitWith(cmd, client, io, { agent: 'assistant' });

/** `ask "<question>"`: submits the question to the `rag` agent kind and follows it (the answer streamed as written). */
export const ask: CommandHandler = (cmd, client, io) => submitWith(cmd, client, io, { agent: 'rag' });

async function submitWith(
  cmd: ParsedCommand,
  client: GatewayClient,
  io: CliIo,
  extra: Record<string, unknown>,
): Promise<number> {
  const text = cmd.text;
  if (!text) throw usageError('the request text is empty');
  answerPolicy(cmd);
  const body = { ...goalBody(cmd, text), ...extra };
  // Always keyed, so the client may repeat the submit after a 503 without creating a second goal.
  const key = stringOption(cmd.values, 'idempotency-key') ?? `cli-${randomUUID()}`;
  const accepted = await client.request('/v1/goals', GoalAccepted, {
    method: 'POST',
    body,
    headers: { 'idempotency-key': key },
  });
  if (cmd.global.json) io.out(JSON.stringify({ type: 'accepted', ...accepted }));
  else io.out(io.style.dim(`goal ${accepted.goalId} ${accepted.status}`));
  return followAndReport(client, accepted.goalId, cmd, io);
}

/** `follow <goalId>`: follows an existing goal (404 before following when it does not exist). */
export const followExisting: CommandHandler = async (cmd, client, io) => {
  answerPolicy(cmd);
  const id = cmd.positionals[0] ?? '';
  await client.request(goalRoute(id), PublicGoal);
  return followAndReport(client, id, cmd, io);
};

/** `next`: lets the system pick its next goal and follows it. */
export const pursueNext: CommandHandler = async (cmd, client, io) => {
  answerPolicy(cmd);
  const reply = await client.request('/v1/goals/next', NextGoalReply, { method: 'POST', body: {} });
  if (!reply.goalId) {
    print(cmd, io, reply, () => 'No goals to pursue at this time.');
    return CLI_EXIT.ok;
  }
  if (cmd.global.json) io.out(JSON.stringify({ type: 'accepted', ...reply }));
  else
    io.out(
      `${io.style.bold('Goal:')} ${reply.goal?.description ?? '?'}\n${io.style.bold('Source:')} ${
        reply.goal?.decider?.name ?? 'autonomous'
      }${io.style.dim(`  (goal ${reply.goalId})`)}`,
    );
  return followAndReport(client, reply.goalId, cmd, io);
};
