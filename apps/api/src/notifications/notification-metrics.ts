import { Counter, type Registry } from 'prom-client';

/** nginx_notifications_sent_total and nginx_notifications_failed_total, by receiver and event. */
export function notificationMetrics(registry: Registry) {
  const registers = [registry];
  return {
    sent: new Counter({
      name: 'nginx_notifications_sent_total',
      help: 'Notifications a receiver took (answered 2xx).',
      labelNames: ['receiver', 'event'],
      registers,
    }),
    failed: new Counter({
      name: 'nginx_notifications_failed_total',
      help: 'Notifications given up after their attempts (unreachable, too slow, refused, redirected, queue full).',
      labelNames: ['receiver', 'event'],
      registers,
    }),
  };
}
