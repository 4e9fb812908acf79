// Workqueue throughput: add + get + done per second, for many distinct keys and for a few hot keys, next to a
// reference measured in the same run: a bare FIFO with Set-based de-duplication and none of the queue's
// processing guarantees (the floor any correct queue pays on top of).
import { WorkQueue } from '../libs/kube-runtime/src/index.js';

class BareDedupQueue {
  private items: string[] = [];
  private head = 0;
  private readonly queued = new Set<string>();
  add(key: string) {
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.items.push(key);
  }
  get(): string | undefined {
    const key = this.items[this.head++];
    if (key !== undefined) this.queued.delete(key);
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }
}

function opsPerSecond(run: () => number): number {
  run(); // warm up
  const started = performance.now();
  const ops = run();
  return ops / ((performance.now() - started) / 1000);
}

const DISTINCT = 100_000;
const HOT = 100;
const HOT_ROUNDS = 10_000;
const distinctKeys = Array.from({ length: DISTINCT }, (_, i) => `default/nginx-${i}`);
const hotKeys = distinctKeys.slice(0, HOT);

function ours(keys: string[], rounds: number): () => number {
  return () => {
    const queue = new WorkQueue<string>();
    for (let round = 0; round < rounds; round++) {
      for (const key of keys) queue.add(key);
      for (let next = queue.tryGet(); next && !next.shutdown; next = queue.tryGet()) queue.done(next.item);
    }
    return keys.length * rounds;
  };
}

function oursAsync(keys: string[], rounds: number): () => Promise<number> {
  return async () => {
    const queue = new WorkQueue<string>();
    for (let round = 0; round < rounds; round++) {
      for (const key of keys) queue.add(key);
      for (let i = 0; i < keys.length; i++) {
        const next = await queue.get();
        if (!next.shutdown) queue.done(next.item);
      }
    }
    return keys.length * rounds;
  };
}

async function opsPerSecondAsync(run: () => Promise<number>): Promise<number> {
  await run();
  const started = performance.now();
  const ops = await run();
  return ops / ((performance.now() - started) / 1000);
}

function reference(keys: string[], rounds: number): () => number {
  return () => {
    const queue = new BareDedupQueue();
    for (let round = 0; round < rounds; round++) {
      for (const key of keys) queue.add(key);
      while (queue.get() !== undefined);
    }
    return keys.length * rounds;
  };
}

export async function runWorkqueueBench(): Promise<{ name: string; ours: number; reference: number }[]> {
  return [
    {
      name: `${DISTINCT.toLocaleString()} distinct keys`,
      ours: opsPerSecond(ours(distinctKeys, 3)),
      reference: opsPerSecond(reference(distinctKeys, 3)),
    },
    {
      name: `${HOT} hot keys`,
      ours: opsPerSecond(ours(hotKeys, HOT_ROUNDS)),
      reference: opsPerSecond(reference(hotKeys, HOT_ROUNDS)),
    },
    {
      name: `${HOT} hot keys, workers awaiting get()`,
      ours: await opsPerSecondAsync(oursAsync(hotKeys, HOT_ROUNDS)),
      reference: opsPerSecond(reference(hotKeys, HOT_ROUNDS)),
    },
  ];
}
