import { randomUUID } from 'node:crypto';
import {
  AspectsListReply,
  BacklogAddReply,
  BacklogListReply,
  BacklogRemoveReply,
  FindReply,
  OperationsListReply,
  SearchReply,
  UndoRedoReply,
} from '@novelrag/contracts';
import { DEFAULT_WAIT_MS, flag, helpText, intOption, type ParsedCommand, stringOption } from './args';
import { CLI_EXIT, usageError } from './errors';
import { type AnswerPolicy, followGoal } from './follow';
import type { GatewayClient } from './gateway-client';
import type { CliIo } from './io';
import {
  renderAspects,
  renderBacklog,
  renderFind,
  renderGoal,
  renderGoalList,
  renderOperations,
  renderSearch,
  renderTools,
  renderUndoRedo,
} from './render/records';
import { renderOutcome } from './render/trace';
import { AnswerAck, GoalAccepted, GoalPage, NextGoalReply, PublicGoal, ToolList } from './responses';

const goalRoute = (id: string) => `/v1/goals/${encodeURIComponent(id)}`;

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

/** Runs one parsed command against the gateway; returns the exit status (errors are thrown as CliError). */
export async function runCommand(cmd: ParsedCommand, client: GatewayClient, io: CliIo): Promise<number> {
  const json = cmd.global.json;
  const print = <T>(value: T, render: (v: T) => string) =>
    io.out(json ? JSON.stringify(value, null, 2) : render(value));
  if (cmd.help) {
    io.out(helpText(cmd.command === 'help' ? cmd.positionals[0] : cmd.command));
    return CLI_EXIT.ok;
  }
  switch (cmd.command) {
    case 'help':
      return CLI_EXIT.ok; // handled above
    case 'goal': {
      const text = cmd.text;
      if (!text) throw usageError('the request text is empty');
      answerPolicy(cmd);
      const maxSteps = intOption(cmd.values, 'max-steps', 1, 1_000);
      const beliefs = cmd.values['belief'];
      // Always keyed, so the client may repeat the submit after a 503 without creating a second goal.
      const key = stringOption(cmd.values, 'idempotency-key') ?? `cli-${randomUUID()}`;
      const accepted = await client.request('/v1/goals', GoalAccepted, {
        method: 'POST',
        body: {
          [flag(cmd.values, 'goal') ? 'goal' : 'request']: text,
          ...(stringOption(cmd.values, 'lang') ? { lang: stringOption(cmd.values, 'lang') } : {}),
          ...(stringOption(cmd.values, 'thread') ? { threadId: stringOption(cmd.values, 'thread') } : {}),
          ...(Array.isArray(beliefs) && beliefs.length ? { beliefs } : {}),
          ...(maxSteps ? { limits: { maxSteps } } : {}),
        },
        headers: { 'idempotency-key': key },
      });
      if (json) io.out(JSON.stringify({ type: 'accepted', ...accepted }));
      else io.out(io.style.dim(`goal ${accepted.goalId} ${accepted.status}`));
      return followAndReport(client, accepted.goalId, cmd, io);
    }
    case 'follow': {
      answerPolicy(cmd);
      const id = cmd.positionals[0] ?? '';
      await client.request(goalRoute(id), PublicGoal); // 404 before following
      return followAndReport(client, id, cmd, io);
    }
    case 'next': {
      answerPolicy(cmd);
      const reply = await client.request('/v1/goals/next', NextGoalReply, { method: 'POST', body: {} });
      if (!reply.goalId) {
        print(reply, () => 'No goals to pursue at this time.');
        return CLI_EXIT.ok;
      }
      if (json) io.out(JSON.stringify({ type: 'accepted', ...reply }));
      else
        io.out(
          `${io.style.bold('Goal:')} ${reply.goal?.description ?? '?'}\n${io.style.bold('Source:')} ${
            reply.goal?.decider?.name ?? 'autonomous'
          }${io.style.dim(`  (goal ${reply.goalId})`)}`,
        );
      return followAndReport(client, reply.goalId, cmd, io);
    }
    case 'goals': {
      const limit = intOption(cmd.values, 'limit', 1, 100);
      const page = await client.request('/v1/goals', GoalPage, {
        query: {
          status: stringOption(cmd.values, 'status'),
          threadId: stringOption(cmd.values, 'thread'),
          limit,
          cursor: stringOption(cmd.values, 'cursor'),
        },
      });
      print(page, renderGoalList);
      return CLI_EXIT.ok;
    }
    case 'show': {
      const goal = await client.request(goalRoute(cmd.positionals[0] ?? ''), PublicGoal);
      print(goal, (g) => renderGoal(g, io.style));
      return CLI_EXIT.ok;
    }
    case 'answer': {
      const [goalId = '', iid = ''] = cmd.positionals;
      const approve = flag(cmd.values, 'approve');
      const decline = flag(cmd.values, 'decline');
      const text = stringOption(cmd.values, 'text');
      if (Number(approve) + Number(decline) + Number(text !== undefined) !== 1)
        throw usageError('give exactly one of --approve, --decline and --text "<answer>"');
      const body = text !== undefined ? { text } : { approved: approve };
      const ack = await client.request(
        `${goalRoute(goalId)}/interactions/${encodeURIComponent(iid)}`,
        AnswerAck,
        {
          method: 'POST',
          body,
        },
      );
      print(ack, () => `Answer to ${iid} accepted.`);
      return CLI_EXIT.ok;
    }
    case 'cancel': {
      const goal = await client.request(`${goalRoute(cmd.positionals[0] ?? '')}/cancel`, PublicGoal, {
        method: 'POST',
      });
      print(goal, (g) =>
        g.outcome
          ? renderOutcome(g.outcome, io.style)
          : `Cancellation of ${g.goalId} requested (it stops at its next safe point).`,
      );
      return CLI_EXIT.ok;
    }
    case 'undo':
    case 'redo': {
      const reply = await client.request(`/v1/${cmd.command}`, UndoRedoReply, { method: 'POST' });
      print(reply, renderUndoRedo);
      return CLI_EXIT.ok;
    }
    case 'get': {
      const reply = await client.request('/v1/resources', FindReply, { query: { uri: cmd.positionals[0] } });
      print(reply, renderFind);
      return CLI_EXIT.ok;
    }
    case 'search': {
      const limit = intOption(cmd.values, 'limit', 1, 100);
      const aspect = stringOption(cmd.values, 'aspect');
      const reply = await client.request('/v1/resources/search', SearchReply, {
        method: 'POST',
        body: { query: cmd.text, ...(aspect ? { aspect } : {}), ...(limit ? { limit } : {}) },
      });
      print(reply, renderSearch);
      return CLI_EXIT.ok;
    }
    case 'tools':
      print(await client.request('/v1/tools', ToolList), renderTools);
      return CLI_EXIT.ok;
    case 'aspects':
      print(await client.request('/v1/aspects', AspectsListReply), renderAspects);
      return CLI_EXIT.ok;
    case 'operations': {
      const limit = intOption(cmd.values, 'limit', 1, 100);
      print(
        await client.request('/v1/operations', OperationsListReply, { query: { limit } }),
        renderOperations,
      );
      return CLI_EXIT.ok;
    }
    case 'backlog':
      return backlog(cmd, client, io);
  }
}

async function backlog(cmd: ParsedCommand, client: GatewayClient, io: CliIo): Promise<number> {
  const json = cmd.global.json;
  const [sub, ...rest] = cmd.positionals;
  if (sub === undefined || sub === 'list') {
    const limit = intOption(cmd.values, 'limit', 1, 100);
    const reply = await client.request('/v1/backlog', BacklogListReply, { query: { limit } });
    io.out(json ? JSON.stringify(reply, null, 2) : renderBacklog(reply));
    return CLI_EXIT.ok;
  }
  if (sub === 'add') {
    const task = rest.join(' ').trim();
    if (!task) throw usageError('usage: novelrag backlog add "<task>" [--priority 0-10]');
    const priority = intOption(cmd.values, 'priority', 0, 10);
    const reply = await client.request('/v1/backlog', BacklogAddReply, {
      method: 'POST',
      body: { content: { task }, ...(priority !== undefined ? { priority } : {}) },
    });
    io.out(
      json ? JSON.stringify(reply, null, 2) : `Added ${reply.entry.id} (priority ${reply.entry.priority}).`,
    );
    return CLI_EXIT.ok;
  }
  if (sub === 'remove' && rest.length === 1) {
    const reply = await client.request(
      `/v1/backlog/${encodeURIComponent(rest[0] ?? '')}`,
      BacklogRemoveReply,
      {
        method: 'DELETE',
      },
    );
    io.out(json ? JSON.stringify(reply, null, 2) : `Removed ${reply.removed.map((e) => e.id).join(', ')}.`);
    return CLI_EXIT.ok;
  }
  throw usageError('usage: novelrag backlog [add "<task>" [--priority 0-10] | remove <id>] [--limit N]');
}
