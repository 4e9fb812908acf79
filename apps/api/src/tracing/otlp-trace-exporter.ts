import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { encodeTraceExportRequest } from './otlp-trace-encoder.js';

/**
 * Our encoder in the SDK's serializer's place; each request starts with a buffer a quarter larger than the last
 * one needed, so a full batch is written without growing it.
 */
function traceSerializer(): ISerializer<ReadableSpan[], IExportTraceServiceResponse> {
  let lastSize = 0;
  return {
    serializeRequest(spans) {
      const encoded = encodeTraceExportRequest(spans, Math.max(16 * 1024, Math.ceil(lastSize * 1.25)));
      lastSize = encoded.length;
      return encoded;
    },
    deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
  };
}

/**
 * The SDK's OTLP/HTTP protobuf span exporter (`@opentelemetry/exporter-trace-otlp-proto`'s OTLPTraceExporter) as
 * that package assembles it — the same transport, retries, timeouts, compression and OTEL_EXPORTER_OTLP_* variables
 * (it appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT) — with our encoder (otlp-trace-encoder.ts says why)
 * writing the same bytes.
 */
export function otlpTraceExporter(): SpanExporter {
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(
      convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
      traceSerializer(),
      'otlp_http_span_exporter',
      TraceExporterMetricsHelper,
      undefined,
    ),
  );
}
