/** A rolling update's two knobs, as a Deployment and an Nginx spell them: a count or a percentage of replicas. */
export interface RollingStrategy {
  maxSurge: number | string;
  maxUnavailable: number | string;
}

/** What a rollout of `replicas` pods may never exceed: pods of one object, and the fewest available of one object. */
export interface Bounds {
  maxSurge: number;
  maxUnavailable: number;
  /** replicas + maxSurge: pods of one object that are not terminating and not finished. */
  maxPods: number;
  /** replicas − maxUnavailable: available (ready, minReadySeconds 0) pods of one object. */
  minAvailable: number;
}

/** A count, or a percentage of `replicas` rounded up (maxSurge) or down (maxUnavailable). */
function scaled(value: number | string, replicas: number, round: 'up' | 'down'): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new Error(`not a count or a percentage: ${value}`);
  const exact = (Number(match[1]) * replicas) / 100;
  return round === 'up' ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * The bounds the Deployment controller keeps (pkg/controller/deployment/util.ResolveFenceposts), worked out here
 * on their own rather than with the controller's rollout-plan.ts, so the bench checks the controller against the
 * Deployment's rules and not against itself: surge rounded up, unavailability rounded down, and both 0 means one
 * pod may be unavailable.
 */
export function boundsOf(strategy: RollingStrategy, replicas: number): Bounds {
  const maxSurge = scaled(strategy.maxSurge, replicas, 'up');
  let maxUnavailable = scaled(strategy.maxUnavailable, replicas, 'down');
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return {
    maxSurge,
    maxUnavailable,
    maxPods: replicas + maxSurge,
    minAvailable: replicas - maxUnavailable,
  };
}

export const strategyLabel = (s: RollingStrategy) =>
  `maxSurge ${s.maxSurge} / maxUnavailable ${s.maxUnavailable}`;
