import { RateLimitingQueue, type Clock } from '@ngx/kube-runtime';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PrometheusWorkQueueMetrics, prometheusReflectorObserver } from './runtime-metrics.js';

/** A clock that moves only when told to; its timers never fire (nothing here waits for one). */
class ManualClock implements Clock {
  private current = 0;
  now(): number {
    return this.current;
  }
  setTimer() {
    return { cancel() {} };
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

describe('Prometheus metrics', () => {
  it('exports the workqueue metrics under client-go names, per queue', async () => {
    const registry = new Registry();
    const clock = new ManualClock();
    const metrics = new PrometheusWorkQueueMetrics(registry, 'nginx');
    const queue = new RateLimitingQueue<string>({ clock, metrics });
    metrics.watch(queue);
    const other = new PrometheusWorkQueueMetrics(registry, 'pods');
    new RateLimitingQueue<string>({ clock, metrics: other }).add('x');

    queue.add('a');
    queue.add('b');
    clock.advance(2000);
    queue.tryGet();
    clock.advance(3000);
    queue.addRateLimited('c');

    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="nginx"} 2');
    expect(text).toContain('workqueue_adds_total{name="pods"} 1');
    expect(text).toContain('workqueue_depth{name="nginx"} 1');
    expect(text).toContain('workqueue_retries_total{name="nginx"} 1');
    expect(text).toContain('workqueue_queue_duration_seconds_count{name="nginx"} 1');
    expect(text).toContain('workqueue_unfinished_work_seconds{name="nginx"} 3');
    expect(text).toContain('workqueue_longest_running_processor_seconds{name="nginx"} 3');
  });

  it('counts reflector lists and watch restarts', async () => {
    const registry = new Registry();
    const observer = prometheusReflectorObserver(registry, 'pods');
    observer.listed?.('streaming', 10, 0.1);
    observer.watchRestarted?.('expired');
    observer.watchRestarted?.('expired');
    const text = await registry.metrics();
    expect(text).toContain('reflector_lists_total{resource="pods",how="streaming"} 1');
    expect(text).toContain('reflector_watch_restarts_total{resource="pods",reason="expired"} 2');
  });
});
