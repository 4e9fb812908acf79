import { randomBytes } from 'node:crypto';
import {
  context as contextApi,
  diag,
  INVALID_SPAN_CONTEXT,
  INVALID_SPANID as INVALID_SPAN_ID,
  INVALID_TRACEID as INVALID_TRACE_ID,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  hrTime,
  hrTimeDuration,
  isAttributeValue,
  isTimeInput,
  isTracingSuppressed,
  timeInputToHrTime,
  type InstrumentationScope,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  SamplingDecision,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_EXCEPTION_MESSAGE,
  ATTR_EXCEPTION_STACKTRACE,
  ATTR_EXCEPTION_TYPE,
} from '@opentelemetry/semantic-conventions';

/**
 * Random span and trace ids, hex, cut from a string of crypto random bytes made at once and remade when used up
 * (one conversion for hundreds of ids); never all zeros (the invalid id).
 */
class RandomIds {
  private static readonly BYTES = 8192;
  private pool = '';
  private next = 0;

  traceId(): string {
    return this.hex(32, INVALID_TRACE_ID);
  }

  spanId(): string {
    return this.hex(16, INVALID_SPAN_ID);
  }

  private hex(digits: number, invalid: string): string {
    for (;;) {
      if (this.next + digits > this.pool.length) {
        this.pool = randomBytes(RandomIds.BYTES).toString('hex');
        this.next = 0;
      }
      const id = this.pool.slice(this.next, (this.next += digits));
      if (id !== invalid) return id;
    }
  }
}

/** What every span of one provider shares. */
interface SpanSetting {
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly processor: SpanProcessor;
}

const EMPTY_TIME: HrTime = [0, 0];
/** Frozen: pushed to by mistake, it throws rather than gathers every span's links. */
const NONE = Object.freeze([]) as never[];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/**
 * One span: the OpenTelemetry API's `Span` while it is open, the SDK's `ReadableSpan` once ended (what span
 * processors and exporters read). Attributes are kept as given when they are valid attribute values, without the
 * SDK's count and length limits: the spans of this app carry a fixed handful.
 */
class LeanSpan implements Span, ReadableSpan {
  readonly attributes: Attributes;
  /** Shared empty arrays until a first link or event (most spans have none): a span is small garbage. */
  links: Link[];
  events: TimedEvent[] = NONE;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  status: SpanStatus = UNSET;
  ended = false;
  /** When it started and ended: `performance.now()`, or the time given; made HrTime when first read. */
  private started: number | HrTime;
  private finished: number | HrTime | undefined;
  private endHrTime: HrTime | undefined;

  constructor(
    private readonly setting: SpanSetting,
    private readonly context: SpanContext,
    public name: string,
    readonly kind: SpanKind,
    readonly parentSpanContext: SpanContext | undefined,
    attributes: Attributes,
    links: Link[],
    startTime: TimeInput | undefined,
  ) {
    this.resource = setting.resource;
    this.instrumentationScope = setting.scope;
    this.attributes = attributes;
    this.links = links;
    this.started = startTime === undefined ? performance.now() : timeInputToHrTime(startTime);
  }

  get startTime(): HrTime {
    if (typeof this.started === 'number') this.started = hrTime(this.started);
    return this.started;
  }

  /** [0, 0] until it ends; never before the start (an end time given earlier is taken as the start). */
  get endTime(): HrTime {
    if (this.finished === undefined) return EMPTY_TIME;
    if (!this.endHrTime) {
      const end = typeof this.finished === 'number' ? hrTime(this.finished) : this.finished;
      this.endHrTime = hrTimeDuration(this.startTime, end)[0] < 0 ? this.startTime : end;
    }
    return this.endHrTime;
  }

  get duration(): HrTime {
    return this.finished === undefined ? EMPTY_TIME : hrTimeDuration(this.startTime, this.endTime);
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value?: AttributeValue): this {
    if (!this.ended && key.length > 0 && isAttributeValue(value)) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const [attributes, at] = isTimeInput(attributesOrTime)
      ? [undefined, attributesOrTime]
      : [attributesOrTime, time];
    if (this.events === NONE) this.events = [];
    this.events.push({
      name,
      attributes: attributes ?? {},
      time: at === undefined ? hrTime() : timeInputToHrTime(at),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links === NONE) this.links = [];
    this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** As the SDK: UNSET changes nothing, OK is final, a message is kept only with ERROR. */
  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK)
      return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** The semantic conventions' `exception` event. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes[ATTR_EXCEPTION_MESSAGE] = exception;
    else {
      const type = exception.name ?? (exception.code === undefined ? undefined : String(exception.code));
      if (type !== undefined) attributes[ATTR_EXCEPTION_TYPE] = type;
      if (exception.message !== undefined) attributes[ATTR_EXCEPTION_MESSAGE] = exception.message;
      if (exception.stack !== undefined) attributes[ATTR_EXCEPTION_STACKTRACE] = exception.stack;
    }
    this.addEvent('exception', attributes, time);
  }

  /** Ends the span once (a second call is reported and ignored) and hands it to the span processor. */
  end(endTime?: TimeInput): void {
    if (this.ended) {
      diag.warn(`span ${this.name} ended more than once`);
      return;
    }
    this.finished = endTime === undefined ? performance.now() : timeInputToHrTime(endTime);
    this.ended = true;
    this.setting.processor.onEnd(this);
  }
}

/**
 * The app's tracer: the same span contexts, sampling, parentage, W3C ids and `ReadableSpan`s as the OpenTelemetry
 * SDK's Tracer, so the SDK's span processors, exporters and samplers take them as they are. Written here because
 * with the SDK's tracer, tracing took 6.3–7.7 % of the controller's CPU at one span per kube-apiserver call, most
 * of it in the span life (ids, sampling, attribute checks, span limits, metrics hooks, the processor chain), where
 * the goal is 3 % for all of tracing; with this one and our OTLP encoder the tracing code takes 2.6–2.9 % once the
 * controller has run a while, though the process pays more in all (`bench:convergence -- --tracing-only`,
 * docs/operations.md). Span processors are told of a span when it ends, not
 * when it starts (`onStart` is never called: the batch processor does nothing there).
 */
class LeanTracer implements Tracer {
  constructor(
    private readonly setting: SpanSetting,
    private readonly sampler: Sampler | undefined,
    private readonly ids: RandomIds,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, context: Context = contextApi.active()): Span {
    if (isTracingSuppressed(context)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = options.root ? undefined : trace.getSpan(context);
    const parent = parentSpan?.spanContext();
    // A span of ours has valid ids by construction; a remote or wrapped one is checked.
    const validParent =
      parentSpan instanceof LeanSpan ? parent : parent && isSpanContextValid(parent) ? parent : undefined;
    const traceId = validParent?.traceId ?? this.ids.traceId();
    const kind = options.kind ?? SpanKind.INTERNAL;
    const links = options.links ?? [];
    const attributes: Attributes = {};
    for (const key in options.attributes) {
      const value = options.attributes[key];
      if (isAttributeValue(value)) attributes[key] = value;
    }
    const sampled: SamplingResult = this.sampler
      ? this.sampler.shouldSample(
          options.root ? ROOT_CONTEXT : context,
          traceId,
          name,
          kind,
          attributes,
          links,
        )
      : !validParent || validParent.traceFlags & TraceFlags.SAMPLED
        ? RECORD_AND_SAMPLE
        : DROP;
    const spanContext: SpanContext = {
      traceId,
      spanId: this.ids.spanId(),
      traceFlags:
        sampled.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: sampled.traceState ?? validParent?.traceState,
    };
    if (sampled.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    if (sampled.attributes) Object.assign(attributes, sampled.attributes);
    return new LeanSpan(
      this.setting,
      spanContext,
      name,
      kind,
      validParent,
      attributes,
      links.length > 0 ? [...links] : NONE,
      options.startTime,
    );
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...args: unknown[]): ReturnType<F> {
    const fn = args.pop() as (span: Span) => ReturnType<F>;
    const [options, context = contextApi.active()] = args as [SpanOptions | undefined, Context | undefined];
    const span = this.startSpan(name, options, context);
    return contextApi.with(trace.setSpan(context, span), fn, undefined, span) as ReturnType<F>;
  }
}

const RECORD_AND_SAMPLE: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });
const DROP: SamplingResult = Object.freeze({ decision: SamplingDecision.NOT_RECORD });

/** What a LeanTracerProvider is made of. */
export interface LeanTracerOptions {
  /** The resource every span names (service.name and the rest). */
  resource: Resource;
  /**
   * Decides which spans are recorded and sampled (the SDK's samplers). Undefined: parentbased_always_on, the
   * default, decided here without a call (a root span sampled, a child as its parent).
   */
  sampler?: Sampler;
  /** Given each span as it ends (the SDK's batch processor, say); shut down with the provider. */
  processor: SpanProcessor;
}

/** The tracer provider to register (`trace.setGlobalTracerProvider`): one LeanTracer per instrumentation scope. */
export class LeanTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, LeanTracer>();
  private readonly ids = new RandomIds();

  constructor(private readonly options: LeanTracerOptions) {}

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      const { resource, sampler, processor } = this.options;
      tracer = new LeanTracer(
        { resource, processor, scope: { name, version, schemaUrl: options?.schemaUrl } },
        sampler,
        this.ids,
      );
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  /** Exports the spans ended so far. */
  forceFlush(): Promise<void> {
    return this.options.processor.forceFlush();
  }

  /** Exports the spans still batched, then stops exporting. */
  shutdown(): Promise<void> {
    return this.options.processor.shutdown();
  }
}
