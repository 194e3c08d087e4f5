import { parseCommandLine } from './args';
import { runCommand } from './commands/run-command';
import { CliError } from './errors';
import { GatewayClient } from './gateway-client';
import type { CliIo } from './io';

/**
 * The whole CLI as a function (tests and the demo call it in-process): parses, runs, prints a coded error on
 * failure, and returns the exit status. Never throws.
 */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  let json = argv.includes('--json');
  try {
    const cmd = parseCommandLine(argv, env);
    json = cmd.global.json;
    const client = new GatewayClient({
      url: cmd.global.url,
      apiKey: cmd.global.apiKey,
      timeoutMs: cmd.global.timeoutMs,
    });
    return await runCommand(cmd, client, io);
  } catch (err) {
    const error =
      err instanceof CliError
        ? err
        : new CliError('protocol', 'INTERNAL', err instanceof Error ? err.message : String(err));
    if (json) io.err(JSON.stringify({ error: error.toJSON() }));
    else
      io.err(
        `${io.style.red(`error [${error.code}]`)}: ${error.message}${
          error.details ? io.style.dim(` ${JSON.stringify(error.details)}`) : ''
        }`,
      );
    return error.exitCode;
  }
}
