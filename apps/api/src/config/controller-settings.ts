import type { AppEnv } from './app-env.js';
import { roleParts, type AppRole } from './app-role.js';
import { ConfigError } from './config-error.js';

/**
 * CONTROLLER (`requested`; default true) turns the reconciler off in a ROLE=all process (an API next to a
 * controller that runs elsewhere, as the tests run it). The other roles fix it: ROLE=api never reconciles,
 * ROLE=controller always does.
 */
export function controllerEnabled(requested: boolean | undefined, role: AppRole): boolean {
  if (role === 'all') return requested ?? true;
  if (requested !== undefined && requested !== roleParts(role).controller)
    throw new ConfigError(
      `CONTROLLER=${String(requested)} contradicts ROLE=${role}: CONTROLLER applies to ROLE=all only; unset it`,
    );
  return roleParts(role).controller;
}

/** The Lease's timings (client-go's LeaseDuration, RenewDeadline, RetryPeriod), in ms. */
export interface LeaseTimings {
  durationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** The LEASE_*_SECONDS, checked against each other as client-go's leader election requires. */
export function leaseTimings(
  env: Pick<AppEnv, 'LEASE_DURATION_SECONDS' | 'LEASE_RENEW_DEADLINE_SECONDS' | 'LEASE_RETRY_PERIOD_SECONDS'>,
): LeaseTimings {
  const lease = {
    durationMs: env.LEASE_DURATION_SECONDS,
    renewDeadlineMs: env.LEASE_RENEW_DEADLINE_SECONDS,
    retryPeriodMs: env.LEASE_RETRY_PERIOD_SECONDS,
  };
  if (lease.renewDeadlineMs >= lease.durationMs)
    throw new ConfigError('LEASE_RENEW_DEADLINE_SECONDS must be shorter than LEASE_DURATION_SECONDS');
  if (lease.retryPeriodMs >= lease.renewDeadlineMs)
    throw new ConfigError('LEASE_RETRY_PERIOD_SECONDS must be shorter than LEASE_RENEW_DEADLINE_SECONDS');
  // The gap holds a leader's last writes: 1 s to reach kube-apiserver and at least 1 s of server deadline.
  if (lease.durationMs - lease.renewDeadlineMs < 2000)
    throw new ConfigError(
      'LEASE_DURATION_SECONDS must be at least 2 seconds longer than LEASE_RENEW_DEADLINE_SECONDS',
    );
  return lease;
}
