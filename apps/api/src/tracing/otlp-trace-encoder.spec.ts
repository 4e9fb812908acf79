import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type HrTime,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeanTracerProvider } from './lean-tracer.js';
import { encodeTraceExportRequest } from './otlp-trace-encoder.js';

/** Ours and the SDK's serializer, byte for byte. */
function expectSdkBytes(spans: ReadableSpan[], sizeHint?: number): Uint8Array {
  const ours = encodeTraceExportRequest(spans, sizeHint);
  const sdk = ProtobufTraceSerializer.serializeRequest(spans)!;
  expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(sdk).toString('hex'));
  return ours;
}

const resource = resourceFromAttributes({ 'service.name': 'spec', 'service.instance.id': 'pod-1' });

/** Spans as the app makes them: a reconcile and its kube-apiserver calls, through the app's tracer. */
function appSpans(count: number): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanTracerProvider({ resource, processor: new SimpleSpanProcessor(exporter) });
  const tracer = provider.getTracer('nginx-control-plane', '1.0.0');
  for (let i = 0; i < count; i++) {
    const reconcile = tracer.startSpan(
      'reconcile nginx',
      { root: true, attributes: { 'k8s.namespace.name': `ns-${i}`, 'nginx.name': 'web' } },
      ROOT_CONTEXT,
    );
    const call = tracer.startSpan(
      'HTTP POST',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': 'POST',
          'url.full': `https://127.0.0.1:6443/api/v1/namespaces/ns-${i}/pods`,
          'server.address': '127.0.0.1',
          'server.port': 6443,
        },
      },
      trace.setSpan(ROOT_CONTEXT, reconcile),
    );
    call.setAttribute('http.response.status_code', i % 7 === 0 ? 409 : 201);
    if (i % 7 === 0) call.setStatus({ code: SpanStatusCode.ERROR });
    if (i % 11 === 0) call.recordException(new Error(`conflict ${'é'.repeat(i % 5)}`));
    call.end();
    reconcile.setAttribute('reconcile.outcome', 'success');
    reconcile.end();
  }
  return exporter.getFinishedSpans();
}

/** A ReadableSpan written out, for what the app's tracer never makes (links, remote parents, trace state). */
function span(
  overrides: Partial<ReadableSpan> & { context?: Partial<ReturnType<ReadableSpan['spanContext']>> },
) {
  const { context, ...fields } = overrides;
  const spanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    ...context,
  };
  return {
    name: 'span',
    kind: SpanKind.INTERNAL,
    spanContext: () => spanContext,
    parentSpanContext: undefined,
    startTime: [1_764_000_000, 123_456_789] as HrTime,
    endTime: [1_764_000_001, 5] as HrTime,
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 0] as HrTime,
    ended: true,
    resource,
    instrumentationScope: { name: 'spec' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...fields,
  } as ReadableSpan;
}

describe('encodeTraceExportRequest', () => {
  it("writes the app's spans as the SDK's serializer does, a batch of 512 in a buffer grown from 1 KiB", () => {
    const spans = appSpans(256);
    expect(spans).toHaveLength(512);
    expect(expectSdkBytes(spans, 1024).length).toBeGreaterThan(64 * 1024);
  });

  it('writes nothing for no spans', () => {
    expect(expectSdkBytes([])).toHaveLength(0);
  });

  it('groups by resource, then by scope, in the order first met', () => {
    const other: Resource = resourceFromAttributes({ 'service.name': 'other' });
    const scopeA = { name: 'a', version: '1', schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' };
    const scopeB = { name: 'b' };
    expectSdkBytes([
      span({ instrumentationScope: scopeA, name: 'one' }),
      span({ instrumentationScope: scopeB, name: 'two', resource: other }),
      span({ instrumentationScope: scopeB, name: 'three' }),
      span({ instrumentationScope: scopeA, name: 'four', resource: other }),
      span({ instrumentationScope: scopeA, name: 'five' }),
    ]);
  });

  it('writes trace state, remote parents, links, events and error statuses as the SDK does', () => {
    expectSdkBytes([
      span({
        context: { traceState: new TraceState('vendor=a,other=b'), traceFlags: TraceFlags.NONE },
        parentSpanContext: {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: '00f067aa0ba902b7',
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        },
        kind: SpanKind.SERVER,
        status: { code: SpanStatusCode.ERROR, message: 'no such pod: ' + 'x'.repeat(300) },
        links: [
          {
            context: {
              traceId: 'ABCDEF0123456789abcdef0123456789',
              spanId: '0123456789abcdef',
              traceFlags: TraceFlags.SAMPLED,
              isRemote: true,
              traceState: new TraceState('k=v'),
            },
            attributes: { reason: 'batch' },
            droppedAttributesCount: 2,
          },
          { context: { traceId: 'zz' + '0'.repeat(30), spanId: '0'.repeat(16), traceFlags: 0 } },
        ],
        events: [
          {
            name: 'exception',
            time: [1_764_000_000, 999_999_999],
            attributes: { 'exception.message': 'boom' },
          },
          { name: 'retry', time: [0, 0], droppedAttributesCount: 3 },
        ],
        droppedAttributesCount: 1,
        droppedEventsCount: 4,
        droppedLinksCount: 300,
      }),
    ]);
  });

  it('writes every kind of attribute value as the SDK does: ints as int64, other numbers as doubles', () => {
    const attributes = {
      text: 'ünïcödé 🚀 and a lone surrogate \ud800',
      long: 'l'.repeat(20_000),
      yes: true,
      no: false,
      zero: 0,
      negative: -1,
      large: 2 ** 53 + 2,
      hugeNegative: -(2 ** 62),
      outOfInt64: 2 ** 63,
      fraction: 0.1,
      nan: Number.NaN,
      infinity: Number.POSITIVE_INFINITY,
      strings: ['a', '', 'b'],
      numbers: [1, 2.5, -3],
      mixed: [true, null, undefined, 'x'],
      bytes: new Uint8Array([0, 1, 255]),
      nested: { a: 1, b: { c: ['d'] } },
      missing: undefined,
      empty: null,
    } as unknown as Attributes;
    expectSdkBytes([span({ attributes })]);
  });

  it('writes any times as the SDK does, exactly, past 2038 and up to the year 2554', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18_446_744_072 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (seconds, nanos) => {
          expectSdkBytes([span({ startTime: [seconds, nanos], endTime: [seconds, nanos] })]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes any names, attributes and statuses as the SDK does', () => {
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.boolean(),
      fc.integer(),
      fc.double(),
      fc.maxSafeInteger(),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.dictionary(fc.string({ unit: 'binary', maxLength: 60 }), value, { maxKeys: 8 }),
        fc.constantFrom(...[SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR]),
        fc.option(fc.string({ maxLength: 150 }), { nil: undefined }),
        (name, attributes, code, message) => {
          expectSdkBytes([span({ name, attributes, status: { code, message } })], 16);
        },
      ),
      { numRuns: 300 },
    );
  });
});
