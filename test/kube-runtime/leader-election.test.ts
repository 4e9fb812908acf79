import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../support/paths.js';
import { sleep, uniqueName, waitFor } from '../support/wait.js';

const LEASE_MS = 4000;
const RETRY_MS = 500;
const children: ChildProcess[] = [];

function candidate(lease: string, identity: string) {
  // `--import tsx` keeps the candidate a single process, so kill -9 really kills the leader.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test/support/leader-candidate.ts'), lease, identity],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const lines: { text: string; at: number }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push({ text, at: Date.now() });
  });
  return { child, identity, lines, leads: () => lines.some((l) => l.text === `LEADER ${identity}`) };
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('leader election on a Lease', () => {
  it('elects one leader of two, and hands over within lease duration + retry period after kill -9', async () => {
    const lease = uniqueName('election');
    const a = candidate(lease, 'candidate-a');
    const b = candidate(lease, 'candidate-b');
    const first = await waitFor('a leader', () => (a.leads() ? a : b.leads() ? b : undefined), {
      timeoutMs: 30_000,
    });
    const second = first === a ? b : a;
    await sleep(2 * LEASE_MS);
    expect(second.leads()).toBe(false); // never two leaders while the first renews

    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await waitFor('the other candidate to lead', () => second.leads(), { timeoutMs: 30_000, intervalMs: 50 });
    const handover = second.lines.find((l) => l.text.startsWith('LEADER'))!.at - killedAt;
    console.log(
      `leadership handed over ${handover} ms after kill -9 (bound ${LEASE_MS + RETRY_MS} ms + jitter)`,
    );
    expect(handover).toBeLessThanOrEqual(LEASE_MS + RETRY_MS * 1.2 + 1000);
  }, 60_000);

  it('releases the lease on a graceful stop so a successor takes over at once', async () => {
    const lease = uniqueName('release');
    const a = candidate(lease, 'first');
    await waitFor('first to lead', () => a.leads(), { timeoutMs: 30_000 });
    const b = candidate(lease, 'second');
    await sleep(1500);
    expect(b.leads()).toBe(false);
    const stoppedAt = Date.now();
    a.child.kill('SIGTERM');
    await waitFor('second to lead', () => b.leads(), { timeoutMs: 30_000, intervalMs: 50 });
    expect(a.lines.map((l) => l.text)).toContain('STOPPED first');
    expect(b.lines.find((l) => l.text.startsWith('LEADER'))!.at - stoppedAt).toBeLessThan(LEASE_MS);
  }, 60_000);
});
