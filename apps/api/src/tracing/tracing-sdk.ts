import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { propagation, trace } from '@opentelemetry/api';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { LeanTracerProvider } from './lean-tracer.js';
import { otlpTraceExporter } from './otlp-trace-exporter.js';
import { samplerFromEnv } from './sampler-from-env.js';

/** The service name unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
export const DEFAULT_SERVICE_NAME = 'nginx-control-plane';

/** A registered tracer provider; `shutdown` exports the spans still batched, then stops exporting. */
export interface TracingSdk {
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK for the process: the W3C trace-context propagator (`traceparent`, `tracestate`),
 * and an OTLP/HTTP (protobuf) exporter behind a batching processor, which drops spans rather than hold anything up when the collector is slow or
 * gone. Everything else is read from the standard variables as the SDK reads them: OTEL_EXPORTER_OTLP_* (the
 * exporter appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT), OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_*,
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. Called only when OTEL_EXPORTER_OTLP_ENDPOINT is set: otherwise
 * nothing is registered and the app's spans are never made.
 */
export function startTracingSdk(): TracingSdk {
  // Later ones win: the SDK's defaults (its own service name among them), ours, then the variables'.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
  // The SDK's sampler, batch processor and exporter around a tracer and an encoder of our own (lean-tracer.ts and
  // otlp-trace-encoder.ts say why).
  const provider = new LeanTracerProvider({
    resource,
    sampler: samplerFromEnv(),
    processor: new BatchSpanProcessor(otlpTraceExporter()),
  });
  // No context manager: a span's children are given it explicitly (a request's trace, a reconcile's), since on
  // Node.js 20 AsyncLocalStorage slows every promise of the process once in use.
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return { shutdown: () => provider.shutdown() };
}
