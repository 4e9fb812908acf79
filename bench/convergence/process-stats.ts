import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The most resident memory the process has had, in MiB (VmHWM). */
export function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** The resident memory the process has now, in MiB (VmRSS). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/**
 * CPU seconds the local PostgreSQL server has used so far: every `postgres` process's own, plus what its exited
 * children (backends of closed connections) left in the postmaster's cumulative child times. Undefined when no
 * server runs here.
 */
export function postgresCpuSeconds(): number | undefined {
  let total: number | undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    const own = Number(fields[11]) + Number(fields[12]);
    // The postmaster (its parent is not postgres) also carries its reaped children's times.
    const children = isPostgres(parent) ? 0 : Number(fields[13]) + Number(fields[14]);
    total = (total ?? 0) + (own + children) / CLOCK_TICKS;
  }
  return total;
}

function isPostgres(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres';
  } catch {
    return false;
  }
}
