import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RECONCILE_TIME_BUCKETS, controllerRuntimeMetrics } from './controller-runtime-metrics.js';
import { leaderElectionStatus } from './leader-election-metrics.js';
import { REST_CLIENT_DURATION_BUCKETS, prometheusRestClientMetrics } from './rest-client-metrics.js';
import { WORKQUEUE_DURATION_BUCKETS } from './runtime-metrics.js';

/** The `le` bounds of a histogram in the exposition text, in order. */
const bucketsOf = (text: string, name: string) =>
  [
    ...new Set([...text.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"`, 'gm'))].map((m) => m[1])),
  ].filter((le) => le !== '+Inf');

describe('the standard metrics (client-go and controller-runtime names)', () => {
  it("keeps client-go's and controller-runtime's buckets", () => {
    // client-go: ExponentialBuckets(10e-9, 10, 10); controller-runtime's reconcile time and client-go's request
    // duration as their sources list them.
    expect(WORKQUEUE_DURATION_BUCKETS).toEqual([
      1e-8, 1e-7, 1e-6, 9.999999999999999e-6, 9.999999999999999e-5, 0.001, 0.01, 0.1, 1, 10,
    ]);
    expect(REST_CLIENT_DURATION_BUCKETS).toEqual([0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]);
    expect(RECONCILE_TIME_BUCKETS).toHaveLength(40);
    expect(RECONCILE_TIME_BUCKETS[0]).toBe(0.005);
    expect(RECONCILE_TIME_BUCKETS.at(-1)).toBe(60);
  });

  it('starts every reconcile result at 0, counts a cut-short reconcile as an error, and reports busy workers', async () => {
    const registry = new Registry();
    const metrics = controllerRuntimeMetrics(registry, 'nginx', 4);
    let text = await registry.metrics();
    for (const result of ['error', 'requeue_after', 'requeue', 'success'])
      expect(text).toContain(`controller_runtime_reconcile_total{controller="nginx",result="${result}"} 0`);
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="nginx"} 0');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="nginx"} 4');
    expect(text).toContain('controller_runtime_active_workers{controller="nginx"} 0');

    metrics.reconciled('success', 0.02);
    metrics.reconciled('requeue_after', 0.01);
    metrics.reconciled('error', 0.5);
    metrics.reconciled('aborted', 0.1);
    metrics.busyWorkers(3);
    text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="nginx",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_total{controller="nginx",result="requeue_after"} 1');
    expect(text).toContain('controller_runtime_reconcile_total{controller="nginx",result="error"} 2');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="nginx"} 2');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="nginx"} 4');
    expect(text).toContain('controller_runtime_active_workers{controller="nginx"} 3');
    expect(bucketsOf(text, 'controller_runtime_reconcile_time_seconds').map(Number)).toEqual(
      RECONCILE_TIME_BUCKETS,
    );
  });

  it('counts requests by code, method and host, and times them by verb and host', async () => {
    const registry = new Registry();
    const metrics = prometheusRestClientMetrics(registry);
    expect(prometheusRestClientMetrics(registry)).toBe(metrics); // one set per registry, every client shares it
    metrics.requestResult('201', 'POST', '127.0.0.1:6443');
    metrics.requestResult('<error>', 'GET', '127.0.0.1:6443');
    metrics.requestLatency('POST', '127.0.0.1:6443', 0.03);
    const text = await registry.metrics();
    expect(text).toContain('rest_client_requests_total{code="201",method="POST",host="127.0.0.1:6443"} 1');
    expect(text).toContain('rest_client_requests_total{code="<error>",method="GET",host="127.0.0.1:6443"} 1');
    expect(text).toContain(
      'rest_client_request_duration_seconds_bucket{le="0.1",verb="POST",host="127.0.0.1:6443"} 1',
    );
    expect(bucketsOf(text, 'rest_client_request_duration_seconds').map(Number)).toEqual(
      REST_CLIENT_DURATION_BUCKETS,
    );
  });

  it('reports 0 for the Lease while standing by, 1 while leading', async () => {
    const registry = new Registry();
    const leading = leaderElectionStatus(registry, 'nginx-controller');
    expect(await registry.metrics()).toContain('leader_election_master_status{name="nginx-controller"} 0');
    leading(true);
    expect(await registry.metrics()).toContain('leader_election_master_status{name="nginx-controller"} 1');
    leading(false);
    expect(await registry.metrics()).toContain('leader_election_master_status{name="nginx-controller"} 0');
  });
});
