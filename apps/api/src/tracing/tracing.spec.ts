import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kubeClientSpans } from './kube-client-spans.js';
import { LeanTracerProvider } from './lean-tracer.js';
import { reconcileOutcome, tracedReconcile } from './reconcile-spans.js';
import { requestTrace, traceRequests } from './server-spans.js';

const exporter = new InMemorySpanExporter();
const provider = new LeanTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'spec' }),
  sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  processor: new SimpleSpanProcessor(exporter),
});
const tracer = provider.getTracer('spec');
const hook = kubeClientSpans(tracer);

// As tracing-sdk.ts registers it: no context manager, traces passed explicitly.
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  propagation.disable();
});
afterEach(() => exporter.reset());

/** A server whose one listener makes a kube-apiserver call through the hook in the request's trace (after an await). */
async function tracedServer(sent: Record<string, string>[]): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    void (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const call = hook.requestStarted({
        method: 'GET',
        url: new URL('https://127.0.0.1:7443/apis/mycompany.com/v1/namespaces/a/nginxes/web'),
        streaming: false,
        parent: requestTrace(request),
      });
      sent.push({ ...call.headers });
      call.ended({ statusCode: 200 });
      response.end(request.url);
    })();
  });
  traceRequests(server, tracer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const spanNamed = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name)!;

describe('server spans', () => {
  it("continues a client's trace and sends it on to kube-apiserver", async () => {
    const sent: Record<string, string>[] = [];
    const { url, server } = await tracedServer(sent);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const answer = await fetch(`${url}/apis/mycompany.com/v1/namespaces/a/nginxes/web?pretty=1`, {
      headers: { traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(answer.status).toBe(200);
    await answer.text();
    server.close();
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(2);
    const spans = exporter.getFinishedSpans();
    const serverSpan = spanNamed(spans, 'GET /apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}');
    const clientSpan = spanNamed(spans, 'HTTP GET');
    expect(serverSpan.spanContext().traceId).toBe(traceId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(parentId);
    expect(serverSpan.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}',
      'url.query': 'pretty=1',
      'http.response.status_code': 200,
    });
    expect(clientSpan.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
    expect(clientSpan.attributes).toMatchObject({ 'http.response.status_code': 200, 'server.port': 7443 });
    expect(sent).toEqual([{ traceparent: `00-${traceId}-${clientSpan.spanContext().spanId}-01` }]);
  });

  it('starts a trace of its own for a malformed traceparent, and traces no request outside the REST paths', async () => {
    const sent: Record<string, string>[] = [];
    const { url, server } = await tracedServer(sent);
    const answer = await fetch(`${url}/api/v1`, { headers: { traceparent: '00-not-a-trace-01' } });
    expect(answer.status).toBe(200);
    expect(await (await fetch(`${url}/healthz`)).text()).toBe('/healthz');
    server.close();
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(2);
    const serverSpan = spanNamed(exporter.getFinishedSpans(), 'GET /api/v1');
    expect(serverSpan.parentSpanContext).toBeUndefined();
    // The health check's kube call happened outside any trace: no span, no header.
    expect(sent[1]).toEqual({});
  });
});

describe('kube-apiserver call spans', () => {
  it('carry a sampled-out trace on without a span, and nothing outside any trace', () => {
    const unsampled = trace.wrapSpanContext({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 0,
    });
    const url = new URL('https://127.0.0.1:7443/api/v1/namespaces/a/pods');
    const inside = hook.requestStarted({
      method: 'POST',
      url,
      streaming: false,
      parent: trace.setSpan(ROOT_CONTEXT, unsampled),
    });
    inside.ended({ statusCode: 201 });
    expect(inside.headers).toEqual({
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00',
    });
    expect(hook.requestStarted({ method: 'GET', url, streaming: true, parent: undefined }).headers).toEqual(
      {},
    );
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('reconcile spans', () => {
  it('makes each reconcile a root span with its kube-apiserver calls as children, and its outcome', async () => {
    const reconcile = tracedReconcile(async (key, _signal, inTrace) => {
      const call = hook.requestStarted({
        method: 'PATCH',
        url: new URL(`https://127.0.0.1:7443/apis/mycompany.com/v1/namespaces/${key}/status`),
        streaming: false,
        parent: inTrace,
      });
      call.ended(key.endsWith('broken') ? { error: new Error('connection reset') } : { statusCode: 200 });
      if (key.endsWith('broken')) throw new Error('connection reset');
      return { requeueAfterMs: 1000 };
    }, tracer);
    await expect(reconcile('team-a/web')).resolves.toEqual({ requeueAfterMs: 1000 });
    await expect(reconcile('team-a/broken')).rejects.toThrow('connection reset');
    const spans = exporter.getFinishedSpans();
    const [web, broken] = spans.filter((span) => span.name === 'reconcile nginx');
    expect(web!.parentSpanContext).toBeUndefined();
    expect(web!.attributes).toEqual({
      'k8s.namespace.name': 'team-a',
      'nginx.name': 'web',
      'reconcile.outcome': 'requeue_after',
    });
    expect(broken!.attributes['reconcile.outcome']).toBe('error');
    const calls = spans.filter((span) => span.name === 'HTTP PATCH');
    expect(calls.map((call) => call.parentSpanContext?.spanId)).toEqual([
      web!.spanContext().spanId,
      broken!.spanContext().spanId,
    ]);
    expect(calls[1]!.attributes['error.type']).toBe('Error');
  });

  it("names a reconcile's outcome as the Controller counts it", () => {
    expect(
      [undefined, { requeue: true as const }, { requeueAfterMs: 0 }, { requeueAfterMs: -1 }].map(
        reconcileOutcome,
      ),
    ).toEqual(['success', 'requeue', 'requeue_after', 'success']);
  });
});
