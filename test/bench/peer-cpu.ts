/**
 * Where the CPU goes during each of the peer benchmark's workloads, on both sides at once: the
 * Ironless local stack (this process's main thread — gateway, Lambda host and the bench's own HTTP
 * client —, its worker threads — the functions' execution environments —, and DynamoDB Local) and
 * the real Ironic (its API processes, its conductor, its MariaDB server). Read from /proc, so
 * Linux only (elsewhere no figures). A side's work should cost CPU on that side only: CPU the
 * idle side burns during the other's turn (periodic tasks, a database's background threads) is
 * taken from the side measured, since both share the machine's cores.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const CLOCK_TICKS = 100;

/** utime + stime of a process (all its threads), or of one thread of it, in seconds; 0 when gone. */
function cpuSeconds(statPath: string): number {
  try {
    const stat = readFileSync(statPath, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

const processCpu = (pid: number) => cpuSeconds(`/proc/${pid}/stat`);

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The processes whose parent is `pid` (Ironic's API forks its workers). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Cumulative CPU seconds by component, both sides. */
export type CpuTotals = Record<string, number>;

export interface CpuMeter {
  sample(): CpuTotals;
}

/**
 * A meter of both sides' processes. `ironicDir` is Ironic's state folder (test/compat/reference/
 * ironic.sh keeps its pid files there); `dynamoDbPid` is the local stack's DynamoDB Local.
 */
export function peerCpuMeter(ironicDir: string, dynamoDbPid: number | undefined): CpuMeter | undefined {
  if (!readdirSync('/proc').includes('self')) return undefined;
  const apiPid = readPid(join(ironicDir, 'api.pid'));
  const conductorPid = readPid(join(ironicDir, 'conductor.pid'));
  const mariadbPid = readPid(join(ironicDir, 'mysql', 'mysqld.pid'));
  const apiPids = apiPid === undefined ? [] : [apiPid, ...childrenOf(apiPid)];
  const own = process.pid;
  return {
    sample() {
      const host = cpuSeconds(`/proc/${own}/task/${own}/stat`);
      return {
        'ironless.host': host,
        'ironless.functions': processCpu(own) - host,
        'ironless.dynamodbLocal': dynamoDbPid === undefined ? 0 : processCpu(dynamoDbPid),
        'ironic.api': apiPids.reduce((n, pid) => n + processCpu(pid), 0),
        'ironic.conductor': conductorPid === undefined ? 0 : processCpu(conductorPid),
        'ironic.mariadb': mariadbPid === undefined ? 0 : processCpu(mariadbPid),
      };
    },
  };
}

/**
 * Milliseconds of CPU per unit of work between two samples, by component, with each side's sum
 * (`ironless`, `ironic`). The bench's HTTP client is in `ironless.host` whichever side it drives.
 */
export function cpuMsPer(before: CpuTotals, after: CpuTotals, units: number): Record<string, number> {
  const out: Record<string, number> = {};
  const sums: Record<string, number> = { ironless: 0, ironic: 0 };
  for (const [key, value] of Object.entries(after)) {
    const ms = ((value - (before[key] ?? 0)) * 1000) / units;
    out[key] = Number(ms.toFixed(3));
    const side = key.split('.')[0]!;
    sums[side] = (sums[side] ?? 0) + ms;
  }
  for (const [side, ms] of Object.entries(sums)) out[side] = Number(ms.toFixed(3));
  return out;
}
