import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { errorMessage, type ReconcileResult } from '@ngx/kube-runtime';
import { keyParts } from './span-names.js';
import { appTracer } from './tracer.js';

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
 * Makes each call of `reconcile` the root span of a trace of its own, `reconcile nginx`, with the requests it sends
 * to kube-apiserver as children. Results and errors pass through unchanged.
 */
export function tracedReconcile(reconcile: Reconcile, tracer: Tracer = appTracer()): Reconcile {
  return (key, signal) => {
    const { namespace, name } = keyParts(key);
    return tracer.startActiveSpan(
      'reconcile nginx',
      {
        kind: SpanKind.INTERNAL,
        root: true,
        attributes: { [RECONCILE_ATTRIBUTES.namespace]: namespace, [RECONCILE_ATTRIBUTES.name]: name },
      },
      ROOT_CONTEXT,
      async (span) => {
        try {
          const result = await reconcile(key, signal);
          span.setAttribute(RECONCILE_ATTRIBUTES.outcome, reconcileOutcome(result));
          return result;
        } catch (error) {
          span.setAttribute(RECONCILE_ATTRIBUTES.outcome, 'error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  };
}
