import { Counter, Histogram, type Registry } from 'prom-client';
import type { AdmissionOutcome } from './admission-review.js';

/** What became of one review: judged and allowed, judged and denied, or answered with an error (400, 413, 429 …). */
export type ReviewOutcome = 'allowed' | 'denied' | 'error';

/** The operations kube-apiserver may send (admission.k8s.io/v1); anything else is counted as `unknown`. */
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/**
 * The `operation` label of a review's body: one of kube-apiserver's four, else `unknown` (no body, no request,
 * an operation made up by whoever posted it), so a caller cannot grow the label's values.
 */
export function reviewOperation(body: unknown): string {
  const request =
    typeof body === 'object' && body !== null && Object.hasOwn(body, 'request')
      ? (body as { request: unknown }).request
      : undefined;
  const operation =
    typeof request === 'object' && request !== null && Object.hasOwn(request, 'operation')
      ? (request as { operation: unknown }).operation
      : undefined;
  return (OPERATIONS as readonly unknown[]).includes(operation) ? (operation as string) : 'unknown';
}

/** The `outcome` label of a judged body: denied when the answer refuses, error when the body was no review. */
export function reviewOutcome(outcome: AdmissionOutcome): ReviewOutcome {
  if (!outcome.ok) return 'error';
  return outcome.review.response.allowed ? 'allowed' : 'denied';
}

/** The admission webhook's collectors in the app's registry. */
export function admissionMetrics(registry: Registry) {
  const registers = [registry];
  const reviews = new Counter({
    name: 'nginx_admission_reviews_total',
    help: 'AdmissionReviews answered by the validating webhook, by operation (CREATE, UPDATE, DELETE, CONNECT, unknown) and outcome (allowed, denied, error: answered 4xx).',
    labelNames: ['operation', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'nginx_admission_review_duration_seconds',
    help: 'Time the validating webhook took to read, judge and answer one AdmissionReview, by outcome.',
    labelNames: ['outcome'],
    // kube-apiserver gives the webhook 5 s (timeoutSeconds); a review is judged in well under a millisecond
    // unless its spec.config is large.
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
    registers,
  });
  return {
    observe(operation: string, outcome: ReviewOutcome, seconds: number): void {
      reviews.inc({ operation, outcome });
      duration.observe({ outcome }, seconds);
    },
  };
}

export type AdmissionMetrics = ReturnType<typeof admissionMetrics>;
