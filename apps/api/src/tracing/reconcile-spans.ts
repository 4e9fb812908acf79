import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from '@opentelemetry/api';
import { errorMessage, type ReconcileResult } from '@ngx/kube-runtime';
import { keyParts } from './span-names.js';
import { appTracer } from './tracer.js';

/** A reconcile told the trace it runs in (the requests it makes are its children). */
type TraceableReconcile = (key: string, signal?: AbortSignal, trace?: Context) => Promise<ReconcileResult>;
type Reconcile = (key: string, signal?: AbortSignal) => Promise<ReconcileResult>;

/** The attributes of a reconcile span (the Nginx it reconciled, how it ended). */
export const RECONCILE_ATTRIBUTES = {
  namespace: 'k8s.namespace.name',
  name: 'nginx.name',
  /** controller-runtime's result words: success, requeue, requeue_after, error (aborted ones count as error). */
  outcome: 'reconcile.outcome',
} as const;

/**
 * How a reconcile that returned ended, in controller-runtime's words, as the Controller counts it
 * (controller_runtime_reconcile_total's `result`).
 */
export function reconcileOutcome(result: ReconcileResult): 'success' | 'requeue' | 'requeue_after' {
  if (result && 'requeue' in result) return 'requeue';
  return result && result.requeueAfterMs >= 0 ? 'requeue_after' : 'success';
}

/**
 * Makes each call of `reconcile` the root span of a trace of its own, `reconcile nginx`, handed to it as `trace`:
 * the requests it sends to kube-apiserver in that trace are its children. Results and errors pass through unchanged.
 */
export function tracedReconcile(reconcile: TraceableReconcile, tracer: Tracer = appTracer()): Reconcile {
  return async (key, signal) => {
    const { namespace, name } = keyParts(key);
    const span = tracer.startSpan(
      'reconcile nginx',
      {
        kind: SpanKind.INTERNAL,
        root: true,
        attributes: { [RECONCILE_ATTRIBUTES.namespace]: namespace, [RECONCILE_ATTRIBUTES.name]: name },
      },
      ROOT_CONTEXT,
    );
    try {
      const result = await reconcile(key, signal, trace.setSpan(ROOT_CONTEXT, span));
      span.setAttribute(RECONCILE_ATTRIBUTES.outcome, reconcileOutcome(result));
      return result;
    } catch (error) {
      span.setAttribute(RECONCILE_ATTRIBUTES.outcome, 'error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
      throw error;
    } finally {
      span.end();
    }
  };
}
