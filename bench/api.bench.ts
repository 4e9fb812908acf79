// npm run bench:api — reports, never asserts. Needs the local cluster (npm run cluster:up).
// Requests per second and p50/p99 latency of GET one Nginx and GET the list of N Nginxes (default 1,000), sent
// by one client (undici, over TLS, the same concurrency) to kube-apiserver directly and to the control plane:
// relayed (unset resourceVersion, a consistent read the API server answers) and cached (resourceVersion=0,
// answered from the control plane's informer cache); relayed over HTTP/2 too; and each again with the client
// speaking HTTP/2 (ALPN h2) to kube-apiserver and to the control plane. Writes bench/results/api.{md,json}.
// With --profile, writes nothing there: after the table, the app is CPU-profiled over one more row each of a
// relayed and a cached single GET (1 in flight), kept in .data/profile/api-{relayed,cached}.{cpuprofile,svg}
// with their largest costs printed, to tell what the relay adds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { CA_FILE, TOKENS, startControlPlane } from '../test/support/control-plane.js';
import { CLUSTER_DIR } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { createObjects } from './cluster-fixtures.js';
import { freePort, inspectorProfiler } from './convergence/cpu-profile.js';
import { quantile } from './latency-stats.js';
import { saveProfile } from './profile-summary.js';
import { runStamp, writeResults } from './results-file.js';

const COUNT = Number(process.env.BENCH_NGINXES ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? (process.argv.includes('--quick') ? 3 : 8));
/** One request at a time shows the latency a hop adds; 16 at once shows throughput on a saturated machine. */
const CONCURRENCY_LEVELS = (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
const CONNECTIONS = Math.max(...CONCURRENCY_LEVELS);
const NAMESPACE = 'bench-api';
const API_SERVER = 'https://127.0.0.1:6443';
const PROFILE = process.argv.includes('--profile');

async function ensureNginxes(): Promise<void> {
  const client = runtimeClient({ qps: 2000, burst: 2000 });
  await createObjects(
    client,
    NAMESPACE,
    `/apis/mycompany.com/v1/namespaces/${NAMESPACE}/nginxes`,
    COUNT,
    (i) => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: `bench-${i}` },
      spec: { replicas: 0 },
    }),
  );
  client.close();
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  bytes: number;
}

/** A closed loop: `concurrency` requests in flight for SECONDS (after a one-second warm-up), latency of each. */
async function load(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  concurrency: number,
): Promise<Result> {
  const run = async (ms: number, record: boolean) => {
    const latencies: number[] = [];
    let bytes = 0;
    const deadline = performance.now() + ms;
    const loop = async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await pool.request({ method: 'GET', path, headers });
        const body = Buffer.from(await response.body.arrayBuffer());
        if (response.statusCode !== 200)
          throw new Error(`${path}: HTTP ${response.statusCode} ${body.toString().slice(0, 200)}`);
        if (record) {
          latencies.push(performance.now() - started);
          bytes = body.length;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    return { latencies, bytes };
  };
  await run(1000, false);
  const { latencies, bytes } = await run(SECONDS * 1000, true);
  return {
    rps: latencies.length / SECONDS,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    bytes,
  };
}

async function main(): Promise<void> {
  console.log(`creating ${COUNT} Nginx objects in ${NAMESPACE} (replicas 0) if missing…`);
  await ensureNginxes();
  const settings = { RATE_LIMIT_RPS: '1000000', KUBE_API_QPS: '100000', KUBE_API_BURST: '100000' };
  const inspectPort = PROFILE ? await freePort() : 0;
  const cp = await startControlPlane(
    PROFILE ? { ...settings, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` } : settings,
  );
  // The same control plane relaying over one HTTP/2 connection to kube-apiserver (KUBE_API_HTTP2).
  const cpHttp2 = await startControlPlane({ ...settings, KUBE_API_HTTP2: 'true' });
  const pki = join(CLUSTER_DIR, 'pki');
  const ca = readFileSync(CA_FILE);
  const apiServer = new Pool(API_SERVER, {
    connections: CONNECTIONS,
    connect: { ca, cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) },
  });
  const controlPlane = new Pool(cp.httpsUrl, { connections: CONNECTIONS, connect: { ca } });
  // Clients that speak HTTP/2 (client-go, kubectl): ALPN h2 to each server, requests multiplexed.
  const apiServerH2 = new Pool(API_SERVER, {
    connections: CONNECTIONS,
    allowH2: true,
    connect: { ca, cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) },
  });
  const controlPlaneH2 = new Pool(cp.httpsUrl, { connections: CONNECTIONS, allowH2: true, connect: { ca } });
  const controlPlaneHttp2 = new Pool(cpHttp2.httpsUrl, { connections: CONNECTIONS, connect: { ca } });
  const token = { Authorization: `Bearer ${TOKENS.viewer}` };
  const one = `/apis/mycompany.com/v1/namespaces/${NAMESPACE}/nginxes/bench-0`;
  const list = `/apis/mycompany.com/v1/namespaces/${NAMESPACE}/nginxes`;
  try {
    // Let the control plane's cache sync before measuring cached reads.
    await load(controlPlane, `${one}?resourceVersion=0`, token, 1).catch(() => undefined);
    const rows: [string, number, string, Result][] = [];
    for (const concurrency of CONCURRENCY_LEVELS)
      for (const [what, path] of [
        ['GET one Nginx', one],
        [`GET list of ${COUNT}`, list],
      ] as const) {
        rows.push([
          what,
          concurrency,
          'kube-apiserver (reference)',
          await load(apiServer, path, {}, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'control plane, relayed',
          await load(controlPlane, path, token, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'control plane, relayed over HTTP/2',
          await load(controlPlaneHttp2, path, token, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'control plane, cached (rv=0)',
          await load(controlPlane, `${path}?resourceVersion=0`, token, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'kube-apiserver, client over HTTP/2',
          await load(apiServerH2, path, {}, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'control plane, relayed, client over HTTP/2',
          await load(controlPlaneH2, path, token, concurrency),
        ]);
        rows.push([
          what,
          concurrency,
          'control plane, cached (rv=0), client over HTTP/2',
          await load(controlPlaneH2, `${path}?resourceVersion=0`, token, concurrency),
        ]);
      }
    const table = [
      '| request | in flight | target | req/s | p50 ms | p99 ms | p50 vs API server | body bytes |',
      '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const [what, concurrency, target, r] of rows) {
      const reference = rows.find(
        ([w, c, t]) => w === what && c === concurrency && t === 'kube-apiserver (reference)',
      )![3];
      table.push(
        `| ${what} | ${concurrency} | ${target} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ` +
          `${(r.p50 / reference.p50).toFixed(2)}× | ${r.bytes} |`,
      );
    }
    if (PROFILE) {
      console.log(table.join('\n'));
      const profiler = await inspectorProfiler(inspectPort);
      for (const [name, path] of [
        ['relayed', one],
        ['cached', `${one}?resourceVersion=0`],
      ] as const) {
        await profiler.start();
        const r = await load(controlPlane, path, token, 1);
        console.log(
          `\nGET one Nginx, ${name}, profiled: p50 ${r.p50.toFixed(2)} ms, ${Math.round(r.rps)} req/s`,
        );
        saveProfile(`api-${name}`, `The app, GET one Nginx ${name}, 1 in flight`, await profiler.stop());
      }
      profiler.close();
      return;
    }
    const versionClient = runtimeClient();
    const version = await versionClient.request<{ gitVersion: string }>({ path: '/version' });
    versionClient.close();
    const stamp = runStamp(version.gitVersion);
    writeResults(
      'api',
      [
        '# Reads through the control plane next to kube-apiserver',
        '',
        `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control ` +
          `plane), Node.js ${process.version}. ${SECONDS} s per row after a 1 s warm-up, over TLS, one client ` +
          `(undici) for every target, ${COUNT} Nginxes in the namespace. "relayed" is a consistent read (no ` +
          'resourceVersion) the control plane sends on to kube-apiserver (HTTP/1.1 keep-alive, or one HTTP/2 ' +
          'connection with KUBE_API_HTTP2=true) and streams back; "cached" is resourceVersion=0, answered from ' +
          'the control plane\'s informer cache. "client over HTTP/2" rows: the client negotiates h2 (ALPN), as ' +
          'client-go and kubectl do; the control plane bridges each stream to its HTTP/1.1 handling in memory.',
        '',
        ...table,
        '',
      ].join('\n'),
      { ...stamp, count: COUNT, seconds: SECONDS, rows },
    );
  } finally {
    await apiServer.close();
    await controlPlane.close();
    await apiServerH2.close();
    await controlPlaneH2.close();
    await controlPlaneHttp2.close();
    await cp.stop();
    await cpHttp2.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
