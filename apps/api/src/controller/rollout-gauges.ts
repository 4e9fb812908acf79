import { rolloutSummary, type Nginx, type RolloutSummary } from '@ngx/nginx-api';
import { Gauge, type Registry } from 'prom-client';

type Labels = { namespace: string; name: string; phase?: string };

/**
 * Per-Nginx rollout gauges, read from the controller's Nginx cache at each scrape: one series per Nginx and gauge,
 * so their number is bounded by the Nginxes watched, and an Nginx's series go with it.
 * - nginx_rollout_phase{namespace,name,phase} 1
 * - nginx_canary_step{namespace,name}, nginx_canary_weight{namespace,name} (Nginxes with a canary)
 * - nginx_analysis_phase{namespace,name,phase} 1 (the newest analysis run's)
 * Each gauge reads the cache itself when scraped (a pass over it costs less than keeping four gauges in step).
 */
export function registerRolloutGauges(registry: Registry, nginxes: () => readonly Nginx[]): void {
  const gauge = (
    name: string,
    help: string,
    labelNames: (keyof Labels)[],
    value: (summary: RolloutSummary) => [Labels, number] | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const nginx of nginxes()) {
          const series = value(rolloutSummary(nginx));
          if (series) this.set(series[0], series[1]);
        }
      },
    });
  const at = ({ namespace, name }: RolloutSummary) => ({ namespace, name });
  gauge(
    'nginx_rollout_phase',
    "1 for each Nginx's rollout phase: its Progressing condition's reason.",
    ['namespace', 'name', 'phase'],
    (summary) => [{ ...at(summary), phase: summary.phase }, 1],
  );
  gauge(
    'nginx_canary_step',
    'Index of the canary step under way (the number of steps once past the last).',
    ['namespace', 'name'],
    (summary) => (summary.canary ? [at(summary), summary.canary.step] : undefined),
  );
  gauge(
    'nginx_canary_weight',
    "Percent of the Nginx's pods on the canary's revision.",
    ['namespace', 'name'],
    (summary) => (summary.canary ? [at(summary), summary.canary.weight] : undefined),
  );
  gauge(
    'nginx_analysis_phase',
    "1 for the phase of each canary's newest analysis run.",
    ['namespace', 'name', 'phase'],
    (summary) => (summary.analysis ? [{ ...at(summary), phase: summary.analysis }, 1] : undefined),
  );
}
