import type { ServiceName } from '@novelrag/contracts';
import type { System } from '../system/system';

/** One injected fault: which process (or the NATS server) and when it was killed. */
export interface Fault {
  readonly kind: 'orchestrator' | 'tool-runner' | 'nats';
  readonly name: string;
  readonly at: number;
}

export interface FaultOptions {
  /** kill -9 of orchestrators and tool-runners in turn, one at a time (each restarted before the next). */
  readonly kills: number;
  /** One kill -9 of the NATS server (restarted on the same port and store), halfway through the kills. */
  readonly natsRestart: boolean;
  /** Pause between one fault's recovery and the next fault (randomised up to this). */
  readonly maxPauseMs: number;
  /** How long a killed process stays down before it is started again. */
  readonly downMs: number;
  /**
   * Start a killed process again under its old instance id (as `npm start` and a restarted container do) instead of
   * a new one (as a container rescheduled elsewhere): with its old id an orchestrator may reclaim its own leases, so a
   * new id measures the takeover by another instance.
   */
  readonly sameIds: boolean;
  /** Who may be killed; the first one (an orchestrator) is the first fault's victim. */
  readonly victims: readonly { readonly app: ServiceName; readonly name: string }[];
  readonly random: () => number;
  readonly log: (line: string) => void;
  /** Stop injecting once this says so (e.g. every goal is terminal). */
  readonly done: () => boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** kill -9 of the live process named `name`; resolves once it has exited. */
async function kill9(system: System, name: string): Promise<void> {
  const p = [...system.processes].reverse().find((x) => x.name === name && x.child.exitCode === null);
  if (!p || p.child.signalCode !== null) return;
  const exited = new Promise((resolve) => p.child.once('exit', resolve));
  p.child.kill('SIGKILL');
  await exited;
}

/**
 * Injects faults one after another: random kill -9 of the victims, each started again (see `sameIds`)
 * after `downMs` (and awaited healthy), with a NATS kill -9 and restart halfway when asked. Returns what it did.
 */
export async function injectFaults(system: System, options: FaultOptions): Promise<Fault[]> {
  const faults: Fault[] = [];
  // Each victim's current instance id (it changes at each restart unless sameIds).
  const current = new Map(options.victims.map((v) => [v.name, v.name]));
  const natsAt = options.natsRestart ? Math.floor(options.kills / 2) : -1;
  for (let i = 0; i < options.kills && !options.done(); i++) {
    await sleep(Math.floor(options.random() * options.maxPauseMs));
    if (options.done()) break;
    if (i === natsAt && system.nats.restart) {
      options.log('fault: kill -9 nats-server (restart on the same port and store)');
      faults.push({ kind: 'nats', name: 'nats-server', at: Date.now() });
      await system.nats.restart({ signal: 'SIGKILL', downMs: options.downMs });
      if (options.done()) break;
      await sleep(Math.floor(options.random() * options.maxPauseMs));
    }
    // Orchestrators and tool-runners in turn, a random instance of each; the first fault kills the first victim.
    const kind = i % 2 === 0 ? 'orchestrator' : 'tool-runner';
    const pool = options.victims.filter((v) => v.app === kind);
    const victim = i === 0 ? options.victims[0] : pool[Math.floor(options.random() * pool.length)];
    if (!victim) throw new Error(`no ${kind} among the victims`);
    const name = current.get(victim.name) ?? victim.name;
    options.log(`fault ${i + 1}/${options.kills}: kill -9 ${name}`);
    const at = Date.now();
    await kill9(system, name);
    faults.push({
      kind: victim.app === 'orchestrator' ? 'orchestrator' : 'tool-runner',
      name,
      at,
    });
    await sleep(options.downMs);
    const next = options.sameIds ? name : `${victim.name}-r${i + 1}`;
    current.set(victim.name, next);
    await system.start(victim.app, next);
    options.log(`fault ${i + 1}/${options.kills}: ${next} started`);
  }
  return faults;
}
