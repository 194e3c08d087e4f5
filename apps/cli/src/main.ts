import { runCli } from './cli';
import { processIo } from './io';

// `novelrag …`: thin entry point; the exit status says how it went (see errors.ts).
void runCli(process.argv.slice(2), process.env, processIo()).then((code) => {
  process.exitCode = code;
});
