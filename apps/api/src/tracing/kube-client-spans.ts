import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { RestClientTracing } from '@ngx/kube-runtime';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { appTracer } from './tracer.js';

const UNTRACED = Object.freeze({ headers: Object.freeze({}), ended: () => {} });

/**
 * The W3C trace-context headers (`traceparent`, `tracestate`) that carry `span` on, as the W3C propagator
 * (tracing-sdk.ts registers it) would inject them; written out here, once per kube-apiserver call, to spare the
 * context and the propagator's checks of a span context this process just made.
 */
function traceHeaders({ traceId, spanId, traceFlags, traceState }: SpanContext): Record<string, string> {
  const traceparent = `00-${traceId}-${spanId}-0${(traceFlags & 0xf).toString(16)}`;
  const state = traceState?.serialize();
  return state ? { traceparent, tracestate: state } : { traceparent };
}

/**
 * The KubeClient's tracing hook: a client span `HTTP <method>` per request to kube-apiserver, a child of the
 * trace the request was made in (`KubeRequest.trace`: a REST request's, a reconcile's), its context sent on as W3C
 * `traceparent`. Inside a trace the sampler left out, the request gets no span but still carries the trace on
 * (flags unsampled). A request made outside any trace (leader Lease renewals, informers' lists and watches) gets
 * neither: it would be a one-span trace per call, noise that costs. A watch's span ends when its headers arrive.
 */
export function kubeClientSpans(tracer: Tracer = appTracer()): RestClientTracing {
  return {
    requestStarted({ method, url, streaming, parent: made }) {
      const parent = made as Context | undefined;
      const parentSpan = parent && trace.getSpan(parent);
      if (!parentSpan) return UNTRACED;
      // Sampled out: no span, the trace carried on as it is.
      if (!parentSpan.isRecording())
        return { headers: traceHeaders(parentSpan.spanContext()), ended: () => {} };
      const attributes: Attributes = {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_FULL]: url.href,
        [ATTR_SERVER_ADDRESS]: url.hostname,
        [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      };
      if (streaming) attributes['kube.stream'] = true;
      const span = tracer.startSpan(`HTTP ${method}`, { kind: SpanKind.CLIENT, attributes }, parent);
      return {
        headers: traceHeaders(span.spanContext()),
        ended(outcome) {
          if ('statusCode' in outcome) {
            span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.statusCode);
            if (outcome.statusCode >= 400) {
              span.setAttribute(ATTR_ERROR_TYPE, String(outcome.statusCode));
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
          } else {
            const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
            span.setAttribute(ATTR_ERROR_TYPE, error.name);
            span.recordException(error);
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          }
          span.end();
        },
      };
    },
  };
}
