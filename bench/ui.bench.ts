/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// npm run bench:ui [-- --quick] — reports, never asserts. Needs the local cluster and Debian's chromium.
//   1. Live pod latency: pods of one Nginx turning Running, from the moment the bench's own watch on the API server
//      sees the change (Kubernetes timestamps have one-second precision, so the watch stands in for "the API
//      server's status change") to the moment its row shows Running in the browser — next to a plain socket.io
//      client subscribed to the same Nginx (the gateway without a browser), measured on the same transitions.
//   2. Rollout latency (bench/ui/rollout-latency.ts): image changes of one Nginx of 4 pods, from the patch sent to
//      the first pod row of the new revision in the detail page's rollout panel, and from the moment the bench's
//      watch sees the status complete to the panel showing "complete" — next to the bench's own watch on the API
//      server and a plain socket.io client, on the same changes.
//   3. The list page with 10,000 Nginxes (BENCH_UI_NGINXES; kept in their own namespace between runs, served by an
//      app without a controller): from navigation to all rows known (the count shown) and to a sort answered, next
//      to the same list read over REST from the cache and as a socket.io snapshot.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { V1Pod } from '@kubernetes/client-node';
import { io } from 'socket.io-client';
import type { SubscribeAck } from '../libs/nginx-api/src/index.js';
import { launchBrowser } from '../test/support/browser.js';
import {
  TOKENS,
  nginxManifest,
  startControlPlane,
  type ControlPlane,
} from '../test/support/control-plane.js';
import { ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { createObjects } from './cluster-fixtures.js';
import { measureRollouts } from './ui/rollout-latency.js';
import { sleep, waitFor } from '../test/support/wait.js';

const QUICK = process.argv.includes('--quick');
const PODS = Number(process.env.BENCH_UI_PODS ?? (QUICK ? 50 : 100));
const ROUNDS = QUICK ? 1 : 2;
const LIST = Number(process.env.BENCH_UI_NGINXES ?? 10_000);
const LIST_NAMESPACE = `bench-ui-list-${LIST}`;
const ROLLOUTS = Number(process.env.BENCH_UI_ROLLOUTS ?? (QUICK ? 3 : 10));
const ROLLOUT_PODS = 4;
const client = runtimeClient({ qps: 2000, burst: 2000 });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');

async function main(): Promise<void> {
  const namespace = `bench-ui-${Date.now().toString(36)}`;
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: namespace } },
  });
  const cp = await startControlPlane(
    { CONTROLLER: 'true', LEADER_ELECTION: 'false', WATCH_NAMESPACE: namespace, RATE_LIMIT_RPS: '1000' },
    { web: true },
  );
  const browser = await launchBrowser();
  let listCp: ControlPlane | undefined;
  try {
    await client.request({
      method: 'POST',
      path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`,
      body: nginxManifest('latency', 0),
    });
    // The API server's side and the socket.io reference, timed in a process of their own (bench/ui/latency-probe.ts).
    const probe = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'bench/ui/latency-probe.ts'),
        cp.url,
        TOKENS.viewer,
        namespace,
        'latency',
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const seenRunning = new Map<string, number>();
    const socketRunning = new Map<string, number>();
    let probeReady!: () => void;
    const ready = new Promise<void>((resolve) => (probeReady = resolve));
    createInterface({ input: probe.stdout }).on('line', (line) => {
      const { source, pod, at } = JSON.parse(line) as { source: string; pod: string; at: number };
      if (source === 'ready') probeReady();
      else (source === 'watch' ? seenRunning : socketRunning).set(pod, at);
    });
    await ready;

    const page = await browser.context.newPage();
    await page.addInitScript((token) => sessionStorage.setItem('ngx.token', token), TOKENS.viewer);
    await page.goto(`${cp.url}/nginxes/${namespace}/latency`);
    await page
      .getByTestId('pods-table')
      .or(page.getByTestId('rollout-panel'))
      .or(page.getByText('No pods'))
      .first()
      .waitFor({ timeout: 30_000 });
    // In the page: the first moment each pod's row shows Running, on the same clock (epoch milliseconds).
    // A string, not a function: tsx would wrap the function's inner names in a helper the page does not have.
    await page.evaluate(`(() => {
      const shown = {};
      window.__running = shown;
      new MutationObserver(() => {
        for (const row of document.querySelectorAll('[data-testid="pod-row"][data-phase="Running"]'))
          shown[row.dataset.pod] ??= performance.timeOrigin + performance.now();
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase'] });
    })()`);

    const scale = (replicas: number) =>
      client.request({
        method: 'PATCH',
        path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/latency`,
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas } },
      });
    const browserLatency: number[] = [];
    const socketLatency: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      seenRunning.clear();
      socketRunning.clear();
      await page.evaluate(() => {
        const shown = (window as unknown as { __running: Record<string, number> }).__running;
        for (const key of Object.keys(shown)) delete shown[key];
      });
      await scale(PODS);
      const deadline = Date.now() + 120_000;
      let shown: Record<string, number> = {};
      while (Date.now() < deadline) {
        shown = await page.evaluate(() => ({
          ...(window as unknown as { __running: Record<string, number> }).__running,
        }));
        if (
          seenRunning.size >= PODS &&
          [...seenRunning.keys()].every((name) => name in shown && socketRunning.has(name))
        )
          break;
        await sleep(1000);
      }
      for (const [name, at] of seenRunning) {
        if (shown[name] !== undefined) browserLatency.push(shown[name]! - at);
        if (socketRunning.has(name)) socketLatency.push(socketRunning.get(name)! - at);
      }
      await scale(0);
      // The next round starts once every pod is gone (their names are new each round).
      while (
        (await client.request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${namespace}/pods` })).items
          .length > 0
      )
        await sleep(500);
    }
    probe.kill();

    const rollouts = await measureRollouts(cp, browser, client, namespace, {
      trials: ROLLOUTS,
      pods: ROLLOUT_PODS,
    });

    // The list page with LIST Nginxes, in a namespace of their own kept between runs, served by a second app
    // without a controller: what is measured is the page and the cache, not a controller reconciling them.
    await createObjects(
      client,
      LIST_NAMESPACE,
      `/apis/mycompany.com/v1/namespaces/${LIST_NAMESPACE}/nginxes`,
      LIST,
      (i) => nginxManifest(`list-${i}`, 0),
    );
    const total = LIST;
    listCp = await startControlPlane(
      { WATCH_NAMESPACE: LIST_NAMESPACE, RATE_LIMIT_RPS: '1000' },
      { web: true },
    );
    const auth = { headers: { Authorization: `Bearer ${TOKENS.viewer}` } };
    const listUrl = `${listCp.url}/apis/mycompany.com/v1/namespaces/${LIST_NAMESPACE}/nginxes?resourceVersion=0`;
    await waitFor(
      `the app's cache to hold ${total} Nginxes`,
      async () =>
        ((await (await fetch(listUrl, auth)).json()) as { items?: unknown[] }).items?.length === total,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    let started = performance.now();
    const listed = (await (await fetch(listUrl, auth)).json()) as { items: unknown[] };
    const restMs = performance.now() - started;
    const snapshotSocket = io(listCp.url, {
      path: '/socket.io',
      auth: { token: TOKENS.viewer },
      transports: ['websocket'],
    });
    await new Promise<void>((resolve) => snapshotSocket.once('connect', () => resolve()));
    started = performance.now();
    const snapshot: SubscribeAck = await snapshotSocket
      .timeout(10_000)
      .emitWithAck('subscribe', { scope: 'namespace', namespace: LIST_NAMESPACE });
    const snapshotMs = performance.now() - started;
    snapshotSocket.close();

    const listPage = await browser.context.newPage();
    await listPage.addInitScript((token) => sessionStorage.setItem('ngx.token', token), TOKENS.viewer);
    started = performance.now();
    await listPage.goto(`${listCp.url}/?namespace=${LIST_NAMESPACE}`);
    await listPage
      .getByTestId('nginx-count')
      .filter({ hasText: `${total} Nginxes` })
      .waitFor({ timeout: 30_000 });
    await listPage.getByTestId('nginx-row').first().waitFor();
    const listMs = performance.now() - started;
    const rowsInDom = await listPage.getByTestId('nginx-row').count();
    const firstBefore = await listPage.getByTestId('nginx-row').first().getAttribute('data-name');
    started = performance.now();
    await listPage.getByRole('button', { name: 'Name', exact: true }).click();
    await listPage.waitForFunction(
      (before) => document.querySelector('[data-testid="nginx-row"]')?.getAttribute('data-name') !== before,
      firstBefore,
      { timeout: 10_000 },
    );
    const sortMs = performance.now() - started;

    console.log(
      `\n| live pod latency (ms), ${browserLatency.length} transitions to Running | p50 | p95 | max |`,
    );
    console.log('| --- | ---: | ---: | ---: |');
    console.log(
      `| row shows Running in the browser | ${fmt(quantile(browserLatency, 0.5))} | ${fmt(quantile(browserLatency, 0.95))} | ${fmt(Math.max(...browserLatency))} |`,
    );
    console.log(
      `| reference: socket.io client, no browser | ${fmt(quantile(socketLatency, 0.5))} | ${fmt(quantile(socketLatency, 0.95))} | ${fmt(Math.max(...socketLatency))} |`,
    );
    const row = (label: string, values: number[]) =>
      console.log(
        `| ${label} | ${fmt(quantile(values, 0.5))} | ${fmt(quantile(values, 0.95))} | ${fmt(Math.max(...values))} |`,
      );
    console.log(
      `\n| rollout latency (ms), ${rollouts.podShown.length} of ${rollouts.trials} image changes of ${rollouts.pods} pods | p50 | p95 | max |`,
    );
    console.log('| --- | ---: | ---: | ---: |');
    row('image patched → first new-revision pod row in the browser', rollouts.podShown);
    row('reference: the watch on kube-apiserver sees that pod', rollouts.podWatch);
    row('reference: socket.io client, no browser, gets that pod', rollouts.podSocket);
    row('rollout complete on the watch → "complete" shown in the browser', rollouts.completeShown);
    row('reference: socket.io client, no browser, gets the complete status', rollouts.completeSocket);
    console.log(`\n| list of ${total} Nginxes | ms |`);
    console.log('| --- | ---: |');
    console.log(
      `| list page: navigation to all ${total} known (${rowsInDom} rows in the DOM) | ${fmt(listMs)} |`,
    );
    console.log(`| list page: sort by name answered | ${fmt(sortMs)} |`);
    console.log(`| reference: REST list from the cache (${listed.items.length} items) | ${fmt(restMs)} |`);
    console.log(
      `| reference: socket.io snapshot (${snapshot.ok ? snapshot.nginxes.length : 0} items) | ${fmt(snapshotMs)} |`,
    );
  } finally {
    await browser.close();
    await cp.stop();
    await listCp?.stop();
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
