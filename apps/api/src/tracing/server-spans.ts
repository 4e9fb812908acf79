import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { isTracedPath, restRoute } from './span-names.js';
import { appTracer } from './tracer.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/** Each traced request's trace: its server span's context. */
const requestTraces = new WeakMap<IncomingMessage, Context>();

/**
 * The trace `request` is served in (its server span's context), for the kube-apiserver requests made for it
 * (`KubeRequest.trace`); undefined when it is not traced (tracing off, or not a REST path).
 */
export function requestTrace(request: IncomingMessage | undefined): Context | undefined {
  return request && requestTraces.get(request);
}

/**
 * Gives every REST request `server` receives (span-names.ts's `isTracedPath`) a server span `<method> <route>`,
 * whose parent is the W3C `traceparent` the client sent, if any and well-formed (a malformed one is ignored: the
 * request starts a trace of its own). The span's context is the request's `requestTrace`, which the code that
 * relays it to kube-apiserver passes on, so those requests are its children and carry the trace on. The span ends when the response is sent or the connection closes: for a watch, with the stream.
 * Call it once the other listeners are attached, before the server listens.
 */
export function traceRequests(server: Server, tracer: Tracer = appTracer()): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const [path = '/', query] = (request.url ?? '/').split('?', 2);
    if (!isTracedPath(path)) {
      for (const listener of listeners) listener.call(server, request, response);
      return;
    }
    const method = request.method ?? 'GET';
    const route = restRoute(path);
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = tracer.startSpan(
      `${method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_HTTP_ROUTE]: route,
          [ATTR_URL_PATH]: path,
          ...(query ? { [ATTR_URL_QUERY]: query } : {}),
          ...(request.headers['user-agent']
            ? { [ATTR_USER_AGENT_ORIGINAL]: request.headers['user-agent'] }
            : {}),
        },
      },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const answered = response.headersSent;
      if (answered) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
      // A stream the client hung up on is no error; a request left unanswered is.
      if (!answered) {
        span.setAttribute(ATTR_ERROR_TYPE, 'no_response');
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (response.statusCode >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(response.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    response.once('finish', end);
    response.once('close', end);
    requestTraces.set(request, trace.setSpan(parent, span));
    for (const listener of listeners) listener.call(server, request, response);
  });
}
