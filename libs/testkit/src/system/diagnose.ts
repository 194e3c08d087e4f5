import type { ServiceProcess } from '../service-process';

const exited = (p: ServiceProcess) => p.child.exitCode !== null || p.child.signalCode !== null;

/** "message (cause: message, code)" for an error and its causes; fetch's errors come from another realm than Jest's. */
function describeError(err: unknown): string {
  const parts: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e !== 'object') {
      parts.push(String(e));
      break;
    }
    const { name, message, code, cause } = e as {
      name?: unknown;
      message?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    parts.push([name, message, code].filter((x) => typeof x === 'string' && x).join(': '));
    e = cause;
  }
  return parts.join(' <- caused by ');
}

/**
 * A failed connection to the gateway usually means a service died: after a moment for exits to be observed, names
 * every service process that exited (with the end of its output) and otherwise shows the gateway's own last output,
 * so the failure explains itself.
 */
export async function diagnose(err: unknown, processes: readonly ServiceProcess[]): Promise<Error> {
  await new Promise((r) => setTimeout(r, 300));
  const dead = processes.filter(exited);
  const shown = dead.length > 0 ? dead : processes.filter((p) => p.name.endsWith('-gw'));
  const report = shown
    .map((p) => {
      const how = exited(p)
        ? `exited (${p.child.signalCode ?? `code ${p.child.exitCode}`})`
        : 'still running';
      return `--- ${p.name} (pid ${p.child.pid}) ${how}; last output:\n${p.output().slice(-3_000)}`;
    })
    .join('\n');
  return new Error(`${describeError(err)}\n${report}`, { cause: err });
}
