import { createInterface } from 'node:readline/promises';
import { COLOR, PLAIN, type Style } from './render/text';

/** Where the CLI writes and how it asks; tests pass a recording implementation. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Writes text as it is, without a line break (the pieces of a streamed answer). */
  write(text: string): void;
  /** A transient status line (progress), replaced by the next status or cleared by the next out/err. */
  status(text: string): void;
  /** True when a human can answer prompts (stdin and stdout are terminals). */
  readonly interactive: boolean;
  readonly style: Style;
  /** Asks a question; undefined when the wait bound ran out or input closed. */
  ask(question: string, signal: AbortSignal): Promise<string | undefined>;
}

/** The process's terminal. Colours only on a TTY and unless NO_COLOR is set. */
export function processIo(env: Readonly<Record<string, string | undefined>> = process.env): CliIo {
  const tty = Boolean(process.stdout.isTTY);
  const interactive = tty && Boolean(process.stdin.isTTY);
  let statusShown = false;
  const clear = () => {
    if (statusShown) process.stdout.write('\r\u001b[2K');
    statusShown = false;
  };
  return {
    out: (text) => {
      clear();
      process.stdout.write(`${text}\n`);
    },
    err: (text) => {
      clear();
      process.stderr.write(`${text}\n`);
    },
    write: (text) => {
      clear();
      process.stdout.write(text);
    },
    status: (text) => {
      if (!tty) return;
      process.stdout.write(`\r\u001b[2K${text}`);
      statusShown = true;
    },
    interactive,
    style: tty && !env['NO_COLOR'] ? COLOR : PLAIN,
    ask: async (question, signal) => {
      clear();
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await rl.question(question, { signal });
      } catch {
        return undefined;
      } finally {
        rl.close();
      }
    },
  };
}
