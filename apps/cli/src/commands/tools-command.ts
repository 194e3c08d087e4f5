import { connect } from '@nats-io/transport-node';
import { JsonObject } from '@novelrag/contracts';
import { type ParsedCommand, stringOption } from '../args';
import { CLI_EXIT, CliError, usageError } from '../errors';
import { runConformance } from '../tools-check/conformance';
import { renderReport } from '../tools-check/report';
import { type CommandHandler, print } from './command-handler';
import { listTools } from './record-commands';

function jsonOption(cmd: ParsedCommand, name: string): JsonObject | undefined {
  const raw = stringOption(cmd.values, name);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw usageError(`--${name} must be a JSON object (got ${JSON.stringify(raw)})`);
  }
  const parsed = JsonObject.safeParse(value);
  if (!parsed.success) throw usageError(`--${name} must be a JSON object (got ${JSON.stringify(raw)})`);
  return parsed.data;
}

/** `tools check <name>`: the conformance report of a live tool, read over the bus. Exit 1 when a check fails. */
async function checkTool(
  cmd: ParsedCommand,
  name: string,
  io: Parameters<CommandHandler>[2],
): Promise<number> {
  const params = jsonOption(cmd, 'params');
  const slowParams = jsonOption(cmd, 'slow-params');
  const url = cmd.natsUrl;
  const nc = await connect({ servers: url, name: 'novelrag-cli-check', timeout: cmd.global.timeoutMs }).catch(
    (err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      throw new CliError(
        'unreachable',
        'UNREACHABLE',
        `cannot reach NATS at ${url} (${reason}); set NATS_URL or --nats`,
      );
    },
  );
  try {
    const results = await runConformance(nc, name, {
      timeoutMs: cmd.global.timeoutMs,
      ...(params ? { params } : {}),
      ...(slowParams ? { slowParams } : {}),
    });
    print(cmd, io, { tool: name, results }, (r) => renderReport(r.tool, r.results));
    return results.some((r) => r.status === 'fail') ? CLI_EXIT.checkFailed : CLI_EXIT.ok;
  } finally {
    await nc.close();
  }
}

/** `tools` lists the tools (through the gateway); `tools check <name>` checks one against the contract (bus). */
export const tools: CommandHandler = async (cmd, client, io) => {
  const [sub, name, ...rest] = cmd.positionals;
  if (sub === undefined) return listTools(cmd, client, io);
  if (sub !== 'check' || name === undefined || rest.length > 0)
    throw usageError(
      'usage: novelrag tools [check <name> [--nats <url>] [--params <json>] [--slow-params <json>]]',
    );
  return checkTool(cmd, name, io);
};
