import type { ControllerMetrics, ReconcileOutcome } from '@ngx/kube-runtime';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** controller-runtime's controller_runtime_reconcile_time_seconds buckets, 5 ms to 60 s. */
export const RECONCILE_TIME_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The `result` label values controller-runtime gives every controller from the start, at 0. */
const RESULTS = ['error', 'requeue_after', 'requeue', 'success'] as const;

/**
 * How a reconcile ended as controller-runtime counts it: a reconcile cut short by the end of the term returned an
 * error there (its context was cancelled).
 */
export const controllerRuntimeResult = (outcome: ReconcileOutcome): (typeof RESULTS)[number] =>
  outcome === 'aborted' ? 'error' : outcome;

interface Collectors {
  total: Counter;
  errors: Counter;
  time: Histogram;
  maxConcurrent: Gauge;
  active: Gauge;
}

const collectors = new WeakMap<Registry, Collectors>();

function collectorsFor(registry: Registry): Collectors {
  let made = collectors.get(registry);
  if (made) return made;
  const registers = [registry];
  const labelNames = ['controller'] as const;
  made = {
    total: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Reconciles by controller and how they ended.',
      labelNames: ['controller', 'result'],
      registers,
    }),
    errors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Reconciles that ended in an error, by controller.',
      labelNames,
      registers,
    }),
    time: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Seconds each reconcile took, by controller.',
      labelNames,
      buckets: RECONCILE_TIME_BUCKETS,
      registers,
    }),
    maxConcurrent: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Workers of each controller: the most reconciles it runs at once.',
      labelNames,
      registers,
    }),
    active: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Workers reconciling a key now, by controller.',
      labelNames,
      registers,
    }),
  };
  collectors.set(registry, made);
  return made;
}

/**
 * controller-runtime's controller metrics for the controller `name` with `workers` workers, as its controllers
 * export them: every result at 0 from the start, errors (including reconciles cut short) counted apart, the time
 * of each reconcile whatever its end.
 */
export type ReconcileMetrics = Required<Pick<ControllerMetrics, 'reconciled' | 'busyWorkers'>>;

export function controllerRuntimeMetrics(
  registry: Registry,
  controller: string,
  workers: number,
): ReconcileMetrics {
  const { total, errors, time, maxConcurrent, active } = collectorsFor(registry);
  for (const result of RESULTS) total.inc({ controller, result }, 0);
  errors.inc({ controller }, 0);
  maxConcurrent.set({ controller }, workers);
  active.set({ controller }, 0);
  return {
    reconciled: (outcome, seconds) => {
      const result = controllerRuntimeResult(outcome);
      total.inc({ controller, result });
      if (result === 'error') errors.inc({ controller });
      time.observe({ controller }, seconds);
    },
    busyWorkers: (count) => active.set({ controller }, count),
  };
}
