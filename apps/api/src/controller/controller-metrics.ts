import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PodWriteMetrics } from './pod-writes.js';

/** The Nginx controller's own Prometheus collectors (the workqueue's and informers' are in metrics/runtime-metrics.ts). */
export function controllerMetrics(registry: Registry) {
  const registers = [registry];
  const created = new Counter({
    name: 'nginx_pods_created_total',
    help: 'Pods created by the controller.',
    registers,
  });
  const createFailures = new Counter({
    name: 'nginx_pod_create_failures_total',
    help: 'Pod creations the API server refused (a quota, an admission webhook, …).',
    registers,
  });
  const deleted = new Counter({
    name: 'nginx_pods_deleted_total',
    help: 'Pods deleted by the controller, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const podWrites: PodWriteMetrics = {
    podCreated: () => created.inc(),
    podCreateFailed: () => createFailures.inc(),
    podDeleted: (reason) => deleted.inc({ reason }),
  };
  return {
    podWrites,
    reconciles: new Counter({
      name: 'nginx_reconciles_total',
      help: 'Reconciles by result (success, error, requeue, aborted: cut short by the end of a leadership term).',
      labelNames: ['result'],
      registers,
    }),
    duration: new Histogram({
      name: 'nginx_reconcile_duration_seconds',
      help: 'Time one reconcile took.',
      labelNames: ['result'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10],
      registers,
    }),
    leader: new Gauge({
      name: 'nginx_controller_leader',
      help: '1 while this instance leads and reconciles.',
      registers,
    }),
    terms: new Counter({
      name: 'nginx_controller_terms_total',
      help: 'Leadership terms ended, by why (stopped, lost, work-ended).',
      labelNames: ['end'],
      registers,
    }),
  };
}

export type ControllerMetrics = ReturnType<typeof controllerMetrics>;
