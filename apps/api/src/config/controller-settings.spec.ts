import { describe, expect, it } from 'vitest';
import { controllerEnabled, leaseTimings } from './controller-settings.js';

describe('controllerEnabled', () => {
  it('lets CONTROLLER turn the reconciler off in ROLE=all only', () => {
    expect(controllerEnabled(undefined, 'all')).toBe(true);
    expect(controllerEnabled(false, 'all')).toBe(false);
    expect(controllerEnabled(undefined, 'api')).toBe(false);
    expect(controllerEnabled(true, 'controller')).toBe(true);
    expect(() => controllerEnabled(true, 'api')).toThrow(
      'CONTROLLER=true contradicts ROLE=api: CONTROLLER applies to ROLE=all only; unset it',
    );
  });
});

describe('leaseTimings', () => {
  const lease = (duration: number, renew: number, retry: number) =>
    leaseTimings({
      LEASE_DURATION_SECONDS: duration,
      LEASE_RENEW_DEADLINE_SECONDS: renew,
      LEASE_RETRY_PERIOD_SECONDS: retry,
    });

  it('keeps timings that leave a leader time for its last writes', () => {
    expect(lease(15_000, 10_000, 2000)).toEqual({
      durationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
    });
  });

  it('refuses timings in the wrong order or too close', () => {
    expect(() => lease(10_000, 10_000, 2000)).toThrow(/RENEW_DEADLINE_SECONDS must be shorter/);
    expect(() => lease(15_000, 10_000, 10_000)).toThrow(/RETRY_PERIOD_SECONDS must be shorter/);
    expect(() => lease(11_000, 10_000, 2000)).toThrow(/at least 2 seconds longer/);
  });
});
