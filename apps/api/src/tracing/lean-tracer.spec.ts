import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { hrTimeToMilliseconds, suppressTracing } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { LeanTracerProvider } from './lean-tracer.js';
import { samplerFromEnv } from './sampler-from-env.js';

const exporter = new InMemorySpanExporter();
const resource = resourceFromAttributes({ 'service.name': 'spec' });
const tracerWith = (sampler?: Sampler) =>
  new LeanTracerProvider({ resource, sampler, processor: new SimpleSpanProcessor(exporter) }).getTracer(
    'spec',
    '1.0',
  );
afterEach(() => exporter.reset());

describe('LeanTracerProvider', () => {
  it('makes root and child spans as the SDK does: W3C ids, parentage, the resource and scope', () => {
    const tracer = tracerWith();
    const root = tracer.startSpan('reconcile nginx', { attributes: { 'nginx.name': 'web' } }, ROOT_CONTEXT);
    const child = tracer.startSpan(
      'HTTP GET',
      { kind: SpanKind.CLIENT, attributes: { 'server.port': 6443 } },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    child.end();
    root.end();
    const [ended, parent] = exporter.getFinishedSpans();
    expect(parent!.spanContext()).toMatchObject({ traceFlags: TraceFlags.SAMPLED });
    expect(parent!.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(parent!.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(parent!.parentSpanContext).toBeUndefined();
    expect(ended!.spanContext().traceId).toBe(parent!.spanContext().traceId);
    expect(ended!.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
    expect(ended).toMatchObject({
      name: 'HTTP GET',
      kind: SpanKind.CLIENT,
      attributes: { 'server.port': 6443 },
      instrumentationScope: { name: 'spec', version: '1.0' },
      resource,
      ended: true,
    });
    expect(hrTimeToMilliseconds(ended!.endTime)).toBeGreaterThanOrEqual(
      hrTimeToMilliseconds(ended!.startTime),
    );
    expect(hrTimeToMilliseconds(ended!.startTime)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('continues a remote parent, and starts a new trace when asked for a root or the parent is invalid', () => {
    const tracer = tracerWith();
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    tracer.startSpan('continued', {}, remote).end();
    tracer.startSpan('root', { root: true }, remote).end();
    const invalid = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'x', spanId: 'y', traceFlags: 1 });
    tracer.startSpan('fresh', {}, invalid).end();
    const [continued, root, fresh] = exporter.getFinishedSpans();
    expect(continued!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(continued!.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
    for (const span of [root!, fresh!]) {
      expect(span.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(span.parentSpanContext).toBeUndefined();
    }
  });

  it("follows the sampler: a span left out does not record, is not exported, and carries the trace's ids on", () => {
    const unsampledParent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.NONE,
    });
    const child = tracerWith().startSpan('child', {}, unsampledParent);
    const dropped = tracerWith(new AlwaysOffSampler()).startSpan('dropped', {}, ROOT_CONTEXT);
    for (const span of [child, dropped]) {
      expect(span.isRecording()).toBe(false);
      expect(span.spanContext().traceFlags).toBe(TraceFlags.NONE);
      span.end();
    }
    expect(child.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("decides as the SDK's parentbased_always_on sampler when given none", () => {
    const context = (traceFlags: TraceFlags, isRemote: boolean) =>
      trace.setSpanContext(ROOT_CONTEXT, {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceFlags,
        isRemote,
      });
    const contexts = [
      ROOT_CONTEXT,
      context(TraceFlags.SAMPLED, true),
      context(TraceFlags.NONE, true),
      context(TraceFlags.SAMPLED, false),
      context(TraceFlags.NONE, false),
    ];
    const decisions = (sampler?: Sampler) =>
      contexts.map((parent) => {
        const span = tracerWith(sampler).startSpan('decided', {}, parent);
        return [span.isRecording(), span.spanContext().traceFlags];
      });
    expect(decisions()).toEqual(decisions(new ParentBasedSampler({ root: new AlwaysOnSampler() })));
    expect(decisions().map(([recording]) => recording)).toEqual([true, true, false, true, false]);
  });

  it('makes no span where tracing is suppressed (an exporter sending its spans)', () => {
    const span = tracerWith().startSpan('export', {}, suppressTracing(ROOT_CONTEXT));
    expect(span.isRecording()).toBe(false);
    span.end();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('keeps valid attributes only, the status as the SDK does, exceptions as events, and ends once', () => {
    const span = tracerWith().startSpan(
      'work',
      { attributes: { kept: 'a', list: [1, 2], dropped: { nested: true } as never } },
      ROOT_CONTEXT,
    );
    span
      .setAttribute('also', true)
      .setAttribute('', 'no key')
      .setAttribute('none', undefined as never);
    span.setAttributes({ more: 2 });
    span.setStatus({ code: SpanStatusCode.UNSET });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'broken' });
    span.recordException(
      Object.assign(new TypeError('bad input'), { stack: 'TypeError: bad input\n  at x' }),
    );
    span.updateName('work done');
    expect(span.isRecording()).toBe(true);
    span.end();
    span.end();
    span.setAttribute('late', 1);
    expect(span.isRecording()).toBe(false);
    const [ended] = exporter.getFinishedSpans();
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    expect(ended!.name).toBe('work done');
    expect(ended!.attributes).toEqual({ kept: 'a', list: [1, 2], also: true, more: 2 });
    expect(ended!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'broken' });
    expect(ended!.events).toMatchObject([
      {
        name: 'exception',
        attributes: {
          'exception.type': 'TypeError',
          'exception.message': 'bad input',
          'exception.stacktrace': 'TypeError: bad input\n  at x',
        },
      },
    ]);
  });

  it("keeps each span's links and events its own", () => {
    const tracer = tracerWith();
    const target = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
    const given = [{ context: target }];
    const linked = tracer.startSpan('linked', { links: given }, ROOT_CONTEXT);
    const plain = tracer.startSpan('plain', {}, ROOT_CONTEXT);
    linked.addLink({ context: target, attributes: { why: 'retry' } }).addEvent('retried');
    given.push({ context: target });
    linked.end();
    plain.end();
    const [first, second] = exporter.getFinishedSpans();
    expect(first!.links).toEqual([{ context: target }, { context: target, attributes: { why: 'retry' } }]);
    expect(first!.events.map((event) => event.name)).toEqual(['retried']);
    expect(second!.links).toEqual([]);
    expect(second!.events).toEqual([]);
  });

  it('keeps an OK status final, and a message only with ERROR', () => {
    const ok = tracerWith().startSpan('ok', {}, ROOT_CONTEXT);
    ok.setStatus({ code: SpanStatusCode.OK, message: 'ignored' });
    ok.setStatus({ code: SpanStatusCode.ERROR, message: 'too late' });
    ok.end();
    expect(exporter.getFinishedSpans()[0]!.status).toEqual({ code: SpanStatusCode.OK });
  });

  it('takes given start and end times, an end before the start as the start', () => {
    const tracer = tracerWith();
    tracer.startSpan('timed', { startTime: [1_700_000_000, 500] }, ROOT_CONTEXT).end([1_700_000_002, 700]);
    tracer
      .startSpan('same second', { startTime: [1_700_000_000, 900] }, ROOT_CONTEXT)
      .end([1_700_000_000, 100]);
    tracer.startSpan('backwards', { startTime: 1_700_000_000_000 }, ROOT_CONTEXT).end(1_699_999_999_000);
    const [timed, sameSecond, backwards] = exporter.getFinishedSpans();
    expect(sameSecond!.endTime).toEqual([1_700_000_000, 900]);
    expect(timed).toMatchObject({ startTime: [1_700_000_000, 500], endTime: [1_700_000_002, 700] });
    expect(timed!.duration).toEqual([2, 200]);
    expect(backwards!.endTime).toEqual(backwards!.startTime);
    expect(backwards!.duration).toEqual([0, 0]);
  });
});

describe('samplerFromEnv', () => {
  const named = (OTEL_TRACES_SAMPLER?: string, OTEL_TRACES_SAMPLER_ARG?: string) =>
    samplerFromEnv({ OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG })?.toString();

  it('builds the sampler the standard variables name; none for parentbased_always_on, the default', () => {
    expect(named()).toBeUndefined();
    expect(named('parentbased_always_on')).toBeUndefined();
    expect(named('always_on')).toBe(new AlwaysOnSampler().toString());
    expect(named('always_off')).toBe(new AlwaysOffSampler().toString());
    expect(named('traceidratio', '0.25')).toBe(new TraceIdRatioBasedSampler(0.25).toString());
    expect(named('parentbased_traceidratio', '0.1')).toMatch(/^ParentBased\{root=TraceIdRatioBased\{0.1\}/);
    expect(named('parentbased_always_off')).toMatch(/^ParentBased\{root=AlwaysOffSampler/);
  });

  it('falls back on the default for an unknown sampler, and on 1 for a ratio out of range or not a number', () => {
    expect(named('sometimes')).toBeUndefined();
    expect(named('traceidratio', '2')).toBe(new TraceIdRatioBasedSampler(1).toString());
    expect(named('traceidratio', 'half')).toBe(new TraceIdRatioBasedSampler(1).toString());
    expect(named('traceidratio', ' ')).toBe(new TraceIdRatioBasedSampler(1).toString());
  });
});
