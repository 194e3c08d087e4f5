// CPU time of OS processes (every thread: JS, GC, libuv), from /proc/<pid>/stat: what a run costs each process, as
// opposed to how long it took. On a shared machine the wall time moves with the load; the CPU time a process spends on
// a fixed amount of work much less.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU milliseconds `pid` has used so far (all its threads); NaN when it cannot be read. */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces) start at field 3 (state); utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return NaN;
  }
}

/**
 * A reading of the CPU time of named processes (`{ name: pid }`); `since(before)` gives each one's milliseconds
 * between two readings.
 */
export function cpuReading(pids) {
  const at = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  return {
    at,
    since: (before) =>
      Object.fromEntries(Object.entries(at).map(([name, ms]) => [name, ms - before.at[name]])),
  };
}
