import type { ReflectorObserver, WorkQueue, WorkQueueMetrics } from '@ngx/kube-runtime';
import { Counter, Gauge, Histogram, exponentialBuckets, type Registry } from 'prom-client';

// kube-runtime only reports through hooks (WorkQueueMetrics, ReflectorObserver); binding them to prom-client
// happens here, at the edge, as client-go leaves its metrics providers to the binary.

/** What the time-based gauges read from a queue when scraped. */
type QueueClock = Pick<WorkQueue<unknown>, 'unfinishedWorkSeconds' | 'longestRunningProcessorSeconds'>;

/**
 * client-go's (k8s.io/component-base workqueue metrics): ExponentialBuckets(10e-9, 10, 10), 10 ns to 10 s, made
 * the same way (each bound the last times 10 in floating point, as prom-client's helper does too), so the `le`
 * labels are the same text (9.999999999999999e-06, not 1e-05).
 */
export const WORKQUEUE_DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 10);

interface QueueCollectors {
  depth: Gauge;
  adds: Counter;
  latency: Histogram;
  workDuration: Histogram;
  retries: Counter;
  unfinished: Gauge;
  longest: Gauge;
  queues: Map<string, QueueClock>;
}

const queueCollectors = new WeakMap<Registry, QueueCollectors>();

/** The workqueue_* collectors of a registry (client-go's names), made once and shared by every queue. */
function collectorsFor(registry: Registry): QueueCollectors {
  let collectors = queueCollectors.get(registry);
  if (collectors) return collectors;
  const queues = new Map<string, QueueClock>();
  const labelNames = ['name'] as const;
  const registers = [registry];
  collectors = {
    queues,
    depth: new Gauge({
      name: 'workqueue_depth',
      help: 'Items waiting in the workqueue.',
      labelNames,
      registers,
    }),
    adds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Items added to the workqueue.',
      labelNames,
      registers,
    }),
    latency: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'Seconds an item waits in the workqueue before a worker takes it.',
      labelNames,
      buckets: WORKQUEUE_DURATION_BUCKETS,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'Seconds a worker spends on an item.',
      labelNames,
      buckets: WORKQUEUE_DURATION_BUCKETS,
      registers,
    }),
    retries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Items added after a delay: rate-limited retries and requeues after a while (client-go counts every AddAfter).',
      labelNames,
      registers,
    }),
    unfinished: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'Seconds of work in progress not yet observed by work_duration; large values mean stuck workers.',
      labelNames,
      registers,
      collect() {
        for (const [name, queue] of queues) this.set({ name }, queue.unfinishedWorkSeconds());
      },
    }),
    longest: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'Seconds the longest running worker has been on its current item.',
      labelNames,
      registers,
      collect() {
        for (const [name, queue] of queues) this.set({ name }, queue.longestRunningProcessorSeconds());
      },
    }),
  };
  queueCollectors.set(registry, collectors);
  return collectors;
}

/**
 * Prometheus metrics for one named workqueue. Pass it as the queue's `metrics`, then `watch(queue)` so the
 * time-based gauges can read the queue when scraped.
 */
export class PrometheusWorkQueueMetrics implements WorkQueueMetrics {
  private readonly collectors: QueueCollectors;

  constructor(
    registry: Registry,
    private readonly name: string,
  ) {
    this.collectors = collectorsFor(registry);
  }

  watch(queue: QueueClock): void {
    this.collectors.queues.set(this.name, queue);
  }

  added(): void {
    this.collectors.adds.inc({ name: this.name });
  }

  depth(items: number): void {
    this.collectors.depth.set({ name: this.name }, items);
  }

  queueLatency(seconds: number): void {
    this.collectors.latency.observe({ name: this.name }, seconds);
  }

  workDuration(seconds: number): void {
    this.collectors.workDuration.observe({ name: this.name }, seconds);
  }

  retried(): void {
    this.collectors.retries.inc({ name: this.name });
  }
}

const reflectorCollectors = new WeakMap<Registry, { lists: Counter; restarts: Counter }>();

/** Counts a reflector's lists (how: list or streaming) and watch restarts (why) under its resource name. */
export function prometheusReflectorObserver(registry: Registry, resource: string): ReflectorObserver {
  let collectors = reflectorCollectors.get(registry);
  if (!collectors) {
    collectors = {
      lists: new Counter({
        name: 'reflector_lists_total',
        help: 'Full lists (initial and relists) made by informers.',
        labelNames: ['resource', 'how'],
        registers: [registry],
      }),
      restarts: new Counter({
        name: 'reflector_watch_restarts_total',
        help: 'Watches that ended and were opened again, by reason.',
        labelNames: ['resource', 'reason'],
        registers: [registry],
      }),
    };
    reflectorCollectors.set(registry, collectors);
  }
  const { lists, restarts } = collectors;
  return {
    listed: (how) => lists.inc({ resource, how }),
    watchRestarted: (reason) => restarts.inc({ resource, reason }),
  };
}
