import { BacklogAddReply, BacklogListReply, BacklogRemoveReply } from '@novelrag/contracts';
import { intOption, type ParsedCommand } from '../args';
import { CLI_EXIT, usageError } from '../errors';
import type { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';
import { renderBacklog } from '../render/records';
import { type CommandHandler, print } from './command-handler';

async function addTask(
  cmd: ParsedCommand,
  client: GatewayClient,
  io: CliIo,
  words: readonly string[],
): Promise<number> {
  const task = words.join(' ').trim();
  if (!task) throw usageError('usage: novelrag backlog add "<task>" [--priority 0-10]');
  const priority = intOption(cmd.values, 'priority', 0, 10);
  const reply = await client.request('/v1/backlog', BacklogAddReply, {
    method: 'POST',
    body: { content: { task }, ...(priority !== undefined ? { priority } : {}) },
  });
  print(cmd, io, reply, (r) => `Added ${r.entry.id} (priority ${r.entry.priority}).`);
  return CLI_EXIT.ok;
}

async function removeEntry(
  cmd: ParsedCommand,
  client: GatewayClient,
  io: CliIo,
  id: string,
): Promise<number> {
  const reply = await client.request(`/v1/backlog/${encodeURIComponent(id)}`, BacklogRemoveReply, {
    method: 'DELETE',
  });
  print(cmd, io, reply, (r) => `Removed ${r.removed.map((e) => e.id).join(', ')}.`);
  return CLI_EXIT.ok;
}

/** `backlog [list]`, `backlog add "<task>" [--priority N]`, `backlog remove <id>`. */
export const backlog: CommandHandler = async (cmd, client, io) => {
  const [sub, ...rest] = cmd.positionals;
  if (sub === undefined || sub === 'list') {
    const limit = intOption(cmd.values, 'limit', 1, 100);
    const reply = await client.request('/v1/backlog', BacklogListReply, { query: { limit } });
    print(cmd, io, reply, renderBacklog);
    return CLI_EXIT.ok;
  }
  if (sub === 'add') return addTask(cmd, client, io, rest);
  if (sub === 'remove' && rest.length === 1) return removeEntry(cmd, client, io, rest[0] ?? '');
  throw usageError('usage: novelrag backlog [add "<task>" [--priority 0-10] | remove <id>] [--limit N]');
};
