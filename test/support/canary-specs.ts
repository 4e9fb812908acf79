// Spec pieces for tests that send canary strategies and analyses (issue 34), good or bad.

/** A valid spec.analysis entry: bad-input tests change one field of it. */
export const ANALYSIS_TEMPLATE = {
  name: 'error-rate',
  prometheus: { address: 'http://prometheus:9090', query: 'up' },
  successCondition: 'result < 0.01',
};

/** spec.strategy of type Canary with these steps (and any other spec.strategy.canary fields). */
export const canaryStrategy = (steps: unknown, more: Record<string, unknown> = {}) => ({
  strategy: { type: 'Canary', canary: { steps, ...more } },
});
