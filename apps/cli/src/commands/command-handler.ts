import type { ParsedCommand } from '../args';
import type { GatewayClient } from '../gateway-client';
import type { CliIo } from '../io';

/** Runs one command against the gateway; returns the exit status (errors are thrown as CliError). */
export type CommandHandler = (cmd: ParsedCommand, client: GatewayClient, io: CliIo) => Promise<number>;

/** Prints a reply: pretty JSON with --json, else its human rendering. */
export function print<T>(cmd: ParsedCommand, io: CliIo, value: T, render: (v: T) => string): void {
  io.out(cmd.global.json ? JSON.stringify(value, null, 2) : render(value));
}

export const goalRoute = (id: string) => `/v1/goals/${encodeURIComponent(id)}`;
