// OpenTelemetry traces received by a real OpenTelemetry Collector (tools/otel-collector, built from the Go module
// proxy): a REST request continues its client's W3C trace and sends it on to kube-apiserver, each reconcile is a
// trace of its own with its kube-apiserver calls as children, a malformed traceparent starts a new trace, and an
// OTLP endpoint that never answers delays neither requests nor reconciles. What kube-apiserver receives is seen
// through a TLS proxy in front of it (support/header-recording-proxy.ts): its audit events carry no headers.
import { mkdtempSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, nginxManifest, type ControlPlane } from './support/control-plane.js';
import { startHeaderRecordingProxy, type HeaderRecordingProxy } from './support/header-recording-proxy.js';
import { createNamespace, nginxesIn } from './support/operations.js';
import { TestCollector, type CollectedSpan } from './support/otel-collector.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const collector = new TestCollector();
let proxy: HeaderRecordingProxy;
let cp: ControlPlane;
let ns: string;

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const json = { 'Content-Type': 'application/json' };

/** The controller and the REST API in one process, exporting to the collector every 200 ms. */
const tracedEnv = (namespace: string, endpoint: string) => ({
  CONTROLLER: 'true',
  WATCH_NAMESPACE: namespace,
  LEASE_NAMESPACE: namespace,
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_SERVICE_NAME: 'ngx-tracing-test',
});

const spansWhere = (what: string, match: (span: CollectedSpan, all: CollectedSpan[]) => boolean) =>
  waitFor(
    what,
    () => {
      const all = collector.spans();
      const found = all.filter((span) => match(span, all));
      return found.length > 0 && found;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );

beforeAll(async () => {
  await collector.start();
  cleanups.push(() => collector.stop());
  proxy = await startHeaderRecordingProxy(mkdtempSync(join(tmpdir(), 'ngx-tracing-')));
  cleanups.push(() => proxy.stop());
  ns = await createNamespace(client, 'tracing', cleanups);
  cp = await startControlPlane({ ...tracedEnv(ns, collector.endpoint), KUBECONFIG: proxy.kubeconfig });
  cleanups.push(() => cp.stop());
}, 600_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  client.close();
});

describe('a REST request', () => {
  it("continues the client's trace in a server span, with a child span per kube-apiserver call that carries it on", async () => {
    const name = uniqueName('traced');
    const created = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes`, {
      method: 'POST',
      headers: { ...json, traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      body: JSON.stringify(nginxManifest(name, 2)),
    });
    expect(created.status).toBe(201);

    const [server] = await spansWhere(
      'the server span of the POST',
      (span) => span.traceId === TRACE_ID && span.kind === 'Server',
    );
    expect(server).toMatchObject({
      name: 'POST /apis/mycompany.com/v1/namespaces/{namespace}/nginxes',
      parentId: CLIENT_SPAN,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes',
        'url.path': `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`,
        'http.response.status_code': '201',
      },
      resource: { 'service.name': 'ngx-tracing-test' },
    });
    const calls = await spansWhere(
      'the kube-apiserver call of the POST',
      (span) => span.traceId === TRACE_ID && span.parentId === server!.spanId && span.name === 'HTTP POST',
    );
    expect(calls[0]).toMatchObject({
      kind: 'Client',
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': '201',
        'server.address': '127.0.0.1',
      },
    });
    expect(calls[0]!.attributes['url.full']).toContain(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes`);
    // kube-apiserver received the trace, with the client span as its parent.
    expect(proxy.requests).toContainEqual({
      method: 'POST',
      url: expect.stringContaining(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes`),
      traceparent: `00-${TRACE_ID}-${calls[0]!.spanId}-01`,
    });
  });

  it('ignores a malformed traceparent: the request is answered and starts a trace of its own', async () => {
    const path = `/apis/mycompany.com/v1/namespaces/${ns}/nginxes?limit=7`;
    for (const traceparent of ['00-not-a-trace-01', `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`, 'garbage']) {
      const answer = await cp.as('viewer')(path, { headers: { traceparent } });
      expect(answer.status).toBe(200);
    }
    const servers = await spansWhere(
      'three server spans of the GETs with malformed traceparents',
      (span) => span.kind === 'Server' && span.attributes['url.query'] === 'limit=7',
    );
    await waitFor(
      'all three',
      () => collector.spans().filter((s) => s.attributes['url.query'] === 'limit=7').length === 3,
    );
    for (const server of servers) {
      expect(server.parentId).toBe('');
      expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(server.traceId).not.toBe('0'.repeat(32));
    }
  });
});

describe('a reconcile', () => {
  it('is a trace of its own with its kube-apiserver calls as children, sent on to kube-apiserver', async () => {
    const name = uniqueName('reconciled');
    await nginxesIn(client, ns).create(name, 2);
    await nginxesIn(client, ns).converged(name, 2);
    const reconciles = await spansWhere(
      `a reconcile of ${name} that created pods`,
      (span, all) =>
        span.name === 'reconcile nginx' &&
        span.attributes['nginx.name'] === name &&
        all.some((child) => child.parentId === span.spanId && child.name === 'HTTP POST'),
    );
    const reconcile = reconciles[0]!;
    expect(reconcile).toMatchObject({
      parentId: '',
      kind: 'Internal',
      attributes: { 'k8s.namespace.name': ns, 'nginx.name': name, 'reconcile.outcome': expect.any(String) },
    });
    const children = collector.spans().filter((span) => span.parentId === reconcile.spanId);
    expect(children.every((child) => child.traceId === reconcile.traceId && child.kind === 'Client')).toBe(
      true,
    );
    const podCreations = children.filter(
      (child) =>
        child.name === 'HTTP POST' && child.attributes['url.full']!.includes(`/namespaces/${ns}/pods`),
    );
    expect(podCreations.length).toBeGreaterThan(0);
    for (const creation of podCreations)
      expect(proxy.requests).toContainEqual({
        method: 'POST',
        url: expect.stringContaining(`/namespaces/${ns}/pods`),
        traceparent: `00-${reconcile.traceId}-${creation.spanId}-01`,
      });
  });

  it('leaves the calls made outside any trace (Lease renewals, informers) untraced', () => {
    const renewals = proxy.requests.filter((request) => request.url.includes('/leases/'));
    expect(renewals.length).toBeGreaterThan(0);
    expect(renewals.every((request) => request.traceparent === undefined)).toBe(true);
  });
});

describe('an OTLP endpoint that never answers', () => {
  let silent: Server;
  let other: ControlPlane;
  let otherNs: string;

  beforeAll(async () => {
    const sockets = new Set<Socket>();
    silent = createServer((socket) => void sockets.add(socket)); // accepts, reads nothing, answers nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    otherNs = await createNamespace(client, 'tracing-silent', cleanups);
    const { port } = silent.address() as { port: number };
    other = await startControlPlane(tracedEnv(otherNs, `http://127.0.0.1:${port}`));
    cleanups.push(() => other.stop());
  }, 120_000);

  it('delays neither REST requests nor reconciles', async () => {
    const name = uniqueName('untroubled');
    const started = performance.now();
    const created = await other.as('editor')(`/apis/mycompany.com/v1/namespaces/${otherNs}/nginxes`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(name, 2)),
    });
    expect(created.status).toBe(201);
    await nginxesIn(client, otherNs).converged(name, 2, 20_000);
    // Many spans batched for an endpoint that holds every export until its timeout: requests stay quick.
    const slowest = Math.max(
      ...(await Promise.all(
        Array.from({ length: 20 }, async () => {
          const begun = performance.now();
          const answer = await other.as('viewer')(
            `/apis/mycompany.com/v1/namespaces/${otherNs}/nginxes/${name}`,
          );
          expect(answer.status).toBe(200);
          return performance.now() - begun;
        }),
      )),
    );
    expect(slowest).toBeLessThan(2_000);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(other.exited()).toBeUndefined();
  });
});
