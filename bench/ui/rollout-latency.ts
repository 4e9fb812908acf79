/// <reference lib="dom" />
// bench/ui.bench.ts's rollout figures: image changes of one Nginx, each timed three ways on one clock (epoch ms):
// by the bench's own watches on kube-apiserver and a plain socket.io client (bench/ui/rollout-probe.ts, a process
// of its own), and by the detail page's rollout panel in the browser (a MutationObserver in the page).
//   - image patched → the first pod row of the new revision shown in a revision group (from the moment the merge
//     patch of spec.image is sent, as `kubectl patch` sends it);
//   - rollout complete (the watch sees the Nginx's status say every pod is updated and available) → the rollout
//     state shows "complete".
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { podTemplateOf, revisionOf, type Nginx, type NginxSpec } from '../../libs/nginx-api/src/index.js';
import type { TestBrowser } from '../../test/support/browser.js';
import { TOKENS, type ControlPlane } from '../../test/support/control-plane.js';
import { ROOT } from '../../test/support/paths.js';
import { recordRollout, resetRolloutRecord, rolloutRecord } from '../../test/support/rollout-page.js';
import { sleep } from '../../test/support/wait.js';

/** Latencies in ms, one per image change that every source saw within the deadline. */
export interface RolloutLatencies {
  trials: number;
  pods: number;
  /** Patch sent → first new-revision pod row in the browser / on the watch / on the socket. */
  podShown: number[];
  podWatch: number[];
  podSocket: number[];
  /** Watch saw the status complete → the browser shows "complete" / the socket client saw it complete. */
  completeShown: number[];
  completeSocket: number[];
}

const NAME = 'rollout';
const TRIAL_DEADLINE_MS = 120_000;

/** The first "complete" the panel showed after it showed something else, at or after `since`. */
function completedAt(states: { state: string; at: number }[], since: number): number | undefined {
  const left = states.findIndex((s) => s.at >= since && s.state !== 'complete');
  if (left < 0) return undefined;
  return states.slice(left).find((s) => s.state === 'complete')?.at;
}

/** Runs `trials` image changes of an Nginx of `pods` pods in `namespace` and times each (see the file's head). */
export async function measureRollouts(
  cp: ControlPlane,
  browser: TestBrowser,
  client: KubeClient,
  namespace: string,
  { trials, pods }: { trials: number; pods: number },
): Promise<RolloutLatencies> {
  const path = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
  const spec: NginxSpec = {
    replicas: pods,
    image: 'nginx:1.27.0',
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
  };
  await client.request({
    method: 'POST',
    path,
    body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: NAME }, spec },
  });

  const seen = new Map<string, number>();
  let probeReady!: () => void;
  const ready = new Promise<void>((resolve) => (probeReady = resolve));
  const probe = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/ui/rollout-probe.ts'), cp.url, TOKENS.viewer, namespace, NAME],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  createInterface({ input: probe.stdout }).on('line', (line) => {
    const { source, event, revision, at } = JSON.parse(line) as Record<string, string> & { at: number };
    if (source === 'ready') probeReady();
    else seen.set(`${source}/${event}/${revision}`, at);
  });
  await ready;

  const page = await browser.context.newPage();
  await page.addInitScript((token) => sessionStorage.setItem('ngx.token', token), TOKENS.viewer);
  await page.goto(`${cp.url}/nginxes/${namespace}/${NAME}`);
  await page.getByTestId('rollout-panel').waitFor({ timeout: 30_000 });
  const first = revisionOf(podTemplateOf(spec));
  const deadline = Date.now() + TRIAL_DEADLINE_MS;
  while (!seen.has(`watch/complete/${first}`) && Date.now() < deadline) await sleep(200);
  await recordRollout(page);

  const result: RolloutLatencies = {
    trials,
    pods,
    podShown: [],
    podWatch: [],
    podSocket: [],
    completeShown: [],
    completeSocket: [],
  };
  try {
    for (let trial = 1; trial <= trials; trial++) {
      const image = `nginx:1.27.${trial}`;
      const hash = revisionOf(podTemplateOf({ ...spec, image }));
      await resetRolloutRecord(page);
      const sent = Date.now();
      await client.request<Nginx>({
        method: 'PATCH',
        path: `${path}/${NAME}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { image } },
      });
      const until = Date.now() + TRIAL_DEADLINE_MS;
      let record = await rolloutRecord(page);
      while (Date.now() < until) {
        record = await rolloutRecord(page);
        const done =
          seen.has(`watch/complete/${hash}`) &&
          seen.has(`socket/complete/${hash}`) &&
          record.firstPod[hash] !== undefined &&
          completedAt(record.states, sent) !== undefined;
        if (done) break;
        await sleep(250);
      }
      const watchPod = seen.get(`watch/pod/${hash}`);
      const socketPod = seen.get(`socket/pod/${hash}`);
      const shownPod = record.firstPod[hash];
      if (watchPod !== undefined) result.podWatch.push(watchPod - sent);
      if (socketPod !== undefined) result.podSocket.push(socketPod - sent);
      if (shownPod !== undefined) result.podShown.push(shownPod - sent);
      const watchComplete = seen.get(`watch/complete/${hash}`);
      const socketComplete = seen.get(`socket/complete/${hash}`);
      const shownComplete = completedAt(record.states, sent);
      if (watchComplete !== undefined) {
        if (shownComplete !== undefined) result.completeShown.push(shownComplete - watchComplete);
        if (socketComplete !== undefined) result.completeSocket.push(socketComplete - watchComplete);
      }
      if (watchComplete === undefined) break; // stuck: later trials would measure the same rollout
    }
  } finally {
    probe.kill();
    await page.close();
  }
  return result;
}
