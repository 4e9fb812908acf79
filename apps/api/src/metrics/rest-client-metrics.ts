import type { RestClientMetrics } from '@ngx/kube-runtime';
import { Counter, Histogram, type Registry } from 'prom-client';

/** client-go's and controller-runtime's rest_client_request_duration_seconds buckets, 5 ms to 60 s. */
export const REST_CLIENT_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

const bound = new WeakMap<Registry, RestClientMetrics>();

/**
 * rest_client_requests_total{code,method,host} and rest_client_request_duration_seconds{verb,host}, with
 * client-go's names, labels and buckets, for every KubeClient of the process (one set per registry).
 */
export function prometheusRestClientMetrics(registry: Registry): RestClientMetrics {
  let metrics = bound.get(registry);
  if (metrics) return metrics;
  const requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Requests to kube-apiserver by HTTP status code (<error> when none came), method and host.',
    labelNames: ['code', 'method', 'host'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rest_client_request_duration_seconds',
    help: 'Seconds each request to kube-apiserver took, client-side rate limiting included, by method and host.',
    labelNames: ['verb', 'host'],
    buckets: REST_CLIENT_DURATION_BUCKETS,
    registers: [registry],
  });
  metrics = {
    requestResult: (code, method, host) => requests.inc({ code, method, host }),
    requestLatency: (verb, host, seconds) => duration.observe({ verb, host }, seconds),
  };
  bound.set(registry, metrics);
  return metrics;
}
