import { WorkQueue } from '../libs/kube-runtime/src/index.js';
const keys = Array.from({ length: 100_000 }, (_, i) => `default/nginx-${i}`);
const hot = keys.slice(0, 100);
function run(q: () => WorkQueue<string>, ks: string[], rounds: number) {
  const queue = q();
  const t = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const k of ks) queue.add(k);
    for (let n = queue.tryGet(); n && !n.shutdown; n = queue.tryGet()) queue.done(n.item);
  }
  return Math.round((ks.length * rounds) / ((performance.now() - t) / 1000));
}
const zero = { now: () => 0, setTimer: () => ({ cancel() {} }) };
const date = { now: () => Date.now(), setTimer: () => ({ cancel() {} }) };
for (let i = 0; i < 2; i++) {
  console.log(
    'perf.now distinct',
    run(() => new WorkQueue(), keys, 3),
    'hot',
    run(() => new WorkQueue(), hot, 10000),
  );
  console.log(
    'zero     distinct',
    run(() => new WorkQueue({ clock: zero }), keys, 3),
    'hot',
    run(() => new WorkQueue({ clock: zero }), hot, 10000),
  );
  console.log(
    'date     distinct',
    run(() => new WorkQueue({ clock: date }), keys, 3),
    'hot',
    run(() => new WorkQueue({ clock: date }), hot, 10000),
  );
}
