import { type CommandName, helpText, type ParsedCommand } from '../args';
import { CLI_EXIT } from '../errors';
import type { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';
import { backlog } from './backlog-command';
import type { CommandHandler } from './command-handler';
import { mcp } from './mcp-command';
import { exportProject, importProject } from './project-commands';
import { tools } from './tools-command';
import { ask, chat, followExisting, pursueNext, submitGoal } from './goal-commands';
import {
  answerInteraction,
  cancelGoal,
  getResource,
  listAspects,
  listGoals,
  listOperations,
  searchResources,
  showGoal,
  undoRedo,
} from './record-commands';

/** One handler per command (a missing command is a type error). */
const HANDLERS: Readonly<Record<CommandName, CommandHandler>> = {
  help: () => Promise.resolve(CLI_EXIT.ok), // printed by runCommand: `help` always sets cmd.help
  goal: submitGoal,
  chat,
  ask,
  follow: followExisting,
  next: pursueNext,
  goals: listGoals,
  show: showGoal,
  answer: answerInteraction,
  cancel: cancelGoal,
  undo: undoRedo,
  redo: undoRedo,
  get: getResource,
  search: searchResources,
  tools,
  aspects: listAspects,
  operations: listOperations,
  backlog,
  import: importProject,
  export: exportProject,
  mcp,
};

/** Runs one parsed command against the gateway; returns the exit status (errors are thrown as CliError). */
export async function runCommand(cmd: ParsedCommand, client: GatewayClient, io: CliIo): Promise<number> {
  if (cmd.help) {
    io.out(helpText(cmd.command === 'help' ? cmd.positionals[0] : cmd.command));
    return CLI_EXIT.ok;
  }
  return HANDLERS[cmd.command](cmd, client, io);
}
