import {
  AspectsListReply,
  FindReply,
  OperationsListReply,
  SearchReply,
  UndoRedoReply,
} from '@novelrag/contracts';
import { flag, intOption, stringOption } from '../args';
import { CLI_EXIT, usageError } from '../errors';
import {
  renderAspects,
  renderFind,
  renderGoal,
  renderGoalList,
  renderOperations,
  renderSearch,
  renderTools,
  renderUndoRedo,
} from '../render/records';
import { renderOutcome } from '../render/trace';
import { AnswerAck, GoalPage, PublicGoal, ToolList } from '../responses';
import { type CommandHandler, goalRoute, print } from './command-handler';

/** `goals`: one page of goals, newest first. */
export const listGoals: CommandHandler = async (cmd, client, io) => {
  const limit = intOption(cmd.values, 'limit', 1, 100);
  const page = await client.request('/v1/goals', GoalPage, {
    query: {
      status: stringOption(cmd.values, 'status'),
      threadId: stringOption(cmd.values, 'thread'),
      limit,
      cursor: stringOption(cmd.values, 'cursor'),
    },
  });
  print(cmd, io, page, renderGoalList);
  return CLI_EXIT.ok;
};

/** `show <goalId>`. */
export const showGoal: CommandHandler = async (cmd, client, io) => {
  const goal = await client.request(goalRoute(cmd.positionals[0] ?? ''), PublicGoal);
  print(cmd, io, goal, (g) => renderGoal(g, io.style));
  return CLI_EXIT.ok;
};

/** `answer <goalId> <interactionId>` with exactly one of --approve, --decline, --text. */
export const answerInteraction: CommandHandler = async (cmd, client, io) => {
  const [goalId = '', iid = ''] = cmd.positionals;
  const approve = flag(cmd.values, 'approve');
  const decline = flag(cmd.values, 'decline');
  const text = stringOption(cmd.values, 'text');
  if (Number(approve) + Number(decline) + Number(text !== undefined) !== 1)
    throw usageError('give exactly one of --approve, --decline and --text "<answer>"');
  const body = text !== undefined ? { text } : { approved: approve };
  const route = `${goalRoute(goalId)}/interactions/${encodeURIComponent(iid)}`;
  const ack = await client.request(route, AnswerAck, { method: 'POST', body });
  print(cmd, io, ack, () => `Answer to ${iid} accepted.`);
  return CLI_EXIT.ok;
};

/** `cancel <goalId>`. */
export const cancelGoal: CommandHandler = async (cmd, client, io) => {
  const goal = await client.request(`${goalRoute(cmd.positionals[0] ?? '')}/cancel`, PublicGoal, {
    method: 'POST',
  });
  print(cmd, io, goal, (g) =>
    g.outcome
      ? renderOutcome(g.outcome, io.style)
      : `Cancellation of ${g.goalId} requested (it stops at its next safe point).`,
  );
  return CLI_EXIT.ok;
};

/** `undo` and `redo` (the route is the command's name). */
export const undoRedo: CommandHandler = async (cmd, client, io) => {
  const reply = await client.request(`/v1/${cmd.command}`, UndoRedoReply, { method: 'POST' });
  print(cmd, io, reply, renderUndoRedo);
  return CLI_EXIT.ok;
};

/** `get <uri>`. */
export const getResource: CommandHandler = async (cmd, client, io) => {
  const reply = await client.request('/v1/resources', FindReply, { query: { uri: cmd.positionals[0] } });
  print(cmd, io, reply, renderFind);
  return CLI_EXIT.ok;
};

/** `search "<query>"`. */
export const searchResources: CommandHandler = async (cmd, client, io) => {
  const limit = intOption(cmd.values, 'limit', 1, 100);
  const aspect = stringOption(cmd.values, 'aspect');
  const reply = await client.request('/v1/resources/search', SearchReply, {
    method: 'POST',
    body: { query: cmd.text, ...(aspect ? { aspect } : {}), ...(limit ? { limit } : {}) },
  });
  print(cmd, io, reply, renderSearch);
  return CLI_EXIT.ok;
};

/** `tools`. */
export const listTools: CommandHandler = async (cmd, client, io) => {
  print(cmd, io, await client.request('/v1/tools', ToolList), renderTools);
  return CLI_EXIT.ok;
};

/** `aspects`. */
export const listAspects: CommandHandler = async (cmd, client, io) => {
  print(cmd, io, await client.request('/v1/aspects', AspectsListReply), renderAspects);
  return CLI_EXIT.ok;
};

/** `operations`: the recent undo/redo history. */
export const listOperations: CommandHandler = async (cmd, client, io) => {
  const limit = intOption(cmd.values, 'limit', 1, 100);
  const reply = await client.request('/v1/operations', OperationsListReply, { query: { limit } });
  print(cmd, io, reply, renderOperations);
  return CLI_EXIT.ok;
};
