import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { admissionMetrics, reviewOperation, reviewOutcome } from './admission-metrics.js';
import { ADMISSION_API_VERSION } from './admission-review.js';

const answer = (allowed: boolean) =>
  ({
    ok: true,
    review: { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid: 'u', allowed } },
  }) as const;

describe('reviewOperation', () => {
  it("is the request's operation when it is one kube-apiserver sends", () => {
    for (const operation of ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'])
      expect(reviewOperation({ request: { operation } })).toBe(operation);
  });

  it('is unknown for anything else, so the label cannot grow', () => {
    for (const body of [undefined, null, 'x', [], {}, { request: null }, { request: {} }])
      expect(reviewOperation(body)).toBe('unknown');
    expect(reviewOperation({ request: { operation: 'create' } })).toBe('unknown');
    expect(reviewOperation({ request: { operation: 'PATCH-ME' } })).toBe('unknown');
    expect(reviewOperation({ request: Object.create({ operation: 'CREATE' }) })).toBe('unknown');
  });
});

describe('reviewOutcome', () => {
  it('is allowed, denied, or error for a body that is no review', () => {
    expect(reviewOutcome(answer(true))).toBe('allowed');
    expect(reviewOutcome(answer(false))).toBe('denied');
    expect(reviewOutcome({ ok: false, problem: 'no' })).toBe('error');
  });
});

describe('admissionMetrics', () => {
  it('counts reviews by operation and outcome and times them by outcome', async () => {
    const registry = new Registry();
    const metrics = admissionMetrics(registry);
    metrics.observe('CREATE', 'denied', 0.002);
    metrics.observe('CREATE', 'denied', 0.003);
    metrics.observe('unknown', 'error', 0.0001);
    const text = await registry.metrics();
    expect(text).toContain('nginx_admission_reviews_total{operation="CREATE",outcome="denied"} 2');
    expect(text).toContain('nginx_admission_reviews_total{operation="unknown",outcome="error"} 1');
    expect(text).toContain('nginx_admission_review_duration_seconds_count{outcome="denied"} 2');
  });
});
