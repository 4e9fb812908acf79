import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { ROOT } from './paths.js';
import { sleep } from './wait.js';

const LOCKS = join(ROOT, '.data', 'locks');

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return true; // being written by its new holder
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Holds `name` across test files that run side by side (each in a process of its own): resolves once no other
 * live process holds it, with the function that lets it go. For what a few files share and cannot share at once,
 * such as the one port kube-apiserver trusts ID tokens from. A holder that died without letting go is passed over.
 */
export async function holdExclusive(name: string, timeoutMs = 15 * 60_000): Promise<() => void> {
  const lock = join(LOCKS, name);
  mkdirSync(LOCKS, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!holderAlive(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new Error(`${name} is still held by another test file after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/**
 * Holds `name` for the whole test file: call it before the file's other hooks, so that it is taken before they run
 * and let go after all of them (Vitest runs after-hooks in reverse order).
 */
export function holdExclusiveForFile(name: string): void {
  let release: (() => void) | undefined;
  afterAll(() => release?.());
  beforeAll(async () => {
    release = await holdExclusive(name);
  }, 16 * 60_000);
}
