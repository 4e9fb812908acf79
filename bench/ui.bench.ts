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
//   3. The list page with 10,000 Nginxes (BENCH_UI_NGINXES; in a namespace of their own, served by an app without a
//      controller): from navigation to all rows known (the count shown) and to a sort answered, next
//      to the same list read over REST from the cache and as a socket.io snapshot.
// Writes bench/results/ui.{md,json}.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { V1Pod } from '@kubernetes/client-node';
import type { BrowserContext } from 'playwright-core';
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
import { quantile, wholeMs } from './latency-stats.js';
import { runStamp, writeResults } from './results-file.js';
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

    // The list page with LIST Nginxes, in a namespace of their own, served by a second app without a controller:
    // what is measured is the page and the cache, not a controller reconciling them.
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

    // From navigation to every row known (the count shown, the first row drawn), in a new tab of `context`.
    const openList = async (context: BrowserContext) => {
      const page = await context.newPage();
      await page.addInitScript((token) => sessionStorage.setItem('ngx.token', token), TOKENS.viewer);
      const begun = performance.now();
      await page.goto(`${listCp!.url}/?namespace=${LIST_NAMESPACE}`);
      await page
        .getByTestId('nginx-count')
        .filter({ hasText: `${total} Nginxes` })
        .waitFor({ timeout: 30_000 });
      await page.getByTestId('nginx-row').first().waitFor();
      return { page, ms: performance.now() - begun };
    };
    // The app's first page ever (its server-side code not yet warm), in a browser of its own; then a visitor's
    // first visit (nothing of this origin in the browser's cache) to the warmed app: what users see.
    const firstBrowser = await launchBrowser();
    const firstMs = await openList(firstBrowser.context).then((opened) => opened.ms);
    await firstBrowser.close();
    const { page: listPage, ms: listMs } = await openList(browser.context);
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

    const lines: string[] = [];
    lines.push(
      `\n| live pod latency (ms), ${browserLatency.length} transitions to Running | p50 | p95 | max |`,
    );
    lines.push('| --- | ---: | ---: | ---: |');
    lines.push(
      `| row shows Running in the browser | ${wholeMs(quantile(browserLatency, 0.5))} | ${wholeMs(quantile(browserLatency, 0.95))} | ${wholeMs(Math.max(...browserLatency))} |`,
    );
    lines.push(
      `| reference: socket.io client, no browser | ${wholeMs(quantile(socketLatency, 0.5))} | ${wholeMs(quantile(socketLatency, 0.95))} | ${wholeMs(Math.max(...socketLatency))} |`,
    );
    const row = (label: string, values: number[]) =>
      lines.push(
        `| ${label} | ${wholeMs(quantile(values, 0.5))} | ${wholeMs(quantile(values, 0.95))} | ${wholeMs(Math.max(...values))} |`,
      );
    lines.push(
      `\n| rollout latency (ms), ${rollouts.podShown.length} of ${rollouts.trials} image changes of ${rollouts.pods} pods | p50 | p95 | max |`,
    );
    lines.push('| --- | ---: | ---: | ---: |');
    row('image patched → first new-revision pod row in the browser', rollouts.podShown);
    row('reference: the watch on kube-apiserver sees that pod', rollouts.podWatch);
    row('reference: socket.io client, no browser, gets that pod', rollouts.podSocket);
    row('rollout complete on the watch → "complete" shown in the browser', rollouts.completeShown);
    row('reference: socket.io client, no browser, gets the complete status', rollouts.completeSocket);
    lines.push(`\n| list of ${total} Nginxes | ms |`);
    lines.push('| --- | ---: |');
    lines.push(
      `| list page: navigation to all ${total} known (${rowsInDom} rows in the DOM), a visitor's first visit | ${wholeMs(listMs)} |`,
    );
    lines.push(`| list page: the same, the app's first page since it started | ${wholeMs(firstMs)} |`);
    lines.push(`| list page: sort by name answered | ${wholeMs(sortMs)} |`);
    lines.push(`| reference: REST list from the cache (${listed.items.length} items) | ${wholeMs(restMs)} |`);
    lines.push(
      `| reference: socket.io snapshot (${snapshot.ok ? snapshot.nginxes.length : 0} items) | ${wholeMs(snapshotMs)} |`,
    );
    const version = await client.request<{ gitVersion: string }>({ path: '/version' });
    const stamp = runStamp(version.gitVersion);
    const summary = (values: number[]) => ({
      p50: quantile(values, 0.5),
      p95: quantile(values, 0.95),
      max: Math.max(...values),
    });
    writeResults(
      'ui',
      [
        '# The web UI in Chromium, next to socket.io and kube-apiserver',
        '',
        `Run ${stamp.date} at ${stamp.commit}; Kubernetes ${stamp.kubernetes}, Node.js ${stamp.node}, Debian's ` +
          `chromium; \`npm run bench:ui${QUICK ? ' -- --quick' : ''}\`.`,
        ...lines,
        '',
      ].join('\n'),
      {
        ...stamp,
        podRunning: { browser: summary(browserLatency), socket: summary(socketLatency) },
        rollouts: {
          podShown: summary(rollouts.podShown),
          podWatch: summary(rollouts.podWatch),
          podSocket: summary(rollouts.podSocket),
          completeShown: summary(rollouts.completeShown),
          completeSocket: summary(rollouts.completeSocket),
        },
        list: { nginxes: total, rowsInDom, listMs, firstMs, sortMs, restMs, snapshotMs },
      },
    );
  } finally {
    await browser.close();
    await cp.stop();
    await listCp?.stop();
    // Both namespaces go: 10,000 Nginxes left behind would be in every later all-namespace list and controller.
    for (const gone of [namespace, LIST_NAMESPACE])
      await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${gone}` }).catch(() => {});
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
