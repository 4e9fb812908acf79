import { rolloutSummary, type Nginx } from '@ngx/nginx-api';
import { Gauge, type Registry } from 'prom-client';

/** How long one pass over the cache serves the gauges read after it (one scrape). */
const FILL_REUSE_MS = 100;

/**
 * Per-Nginx rollout gauges, read from the controller's Nginx cache at each scrape: one series per Nginx and gauge,
 * so their number is bounded by the Nginxes watched, and an Nginx's series go with it.
 * - nginx_rollout_phase{namespace,name,phase} 1
 * - nginx_canary_step{namespace,name}, nginx_canary_weight{namespace,name} (Nginxes with a canary)
 * - nginx_analysis_phase{namespace,name,phase} 1 (the newest analysis run's)
 */
export function registerRolloutGauges(registry: Registry, nginxes: () => readonly Nginx[]): void {
  // One pass over the cache fills all four gauges: each gauge's collect runs it, and the ones read right after the
  // first (a scrape reads them one after another) find it done.
  let filledAt = -Infinity;
  const fill = () => {
    const now = performance.now();
    if (now - filledAt < FILL_REUSE_MS) return;
    filledAt = now;
    for (const gauge of gauges) gauge.reset();
    for (const nginx of nginxes()) {
      const series = rolloutSummary(nginx);
      const at = { namespace: series.namespace, name: series.name };
      phase.set({ ...at, phase: series.phase }, 1);
      if (series.canary) {
        step.set(at, series.canary.step);
        weight.set(at, series.canary.weight);
      }
      if (series.analysis) analysis.set({ ...at, phase: series.analysis }, 1);
    }
  };
  const common = { registers: [registry], collect: fill };
  const phase = new Gauge({
    name: 'nginx_rollout_phase',
    help: "1 for each Nginx's rollout phase: its Progressing condition's reason.",
    labelNames: ['namespace', 'name', 'phase'],
    ...common,
  });
  const step = new Gauge({
    name: 'nginx_canary_step',
    help: 'Index of the canary step under way (the number of steps once past the last).',
    labelNames: ['namespace', 'name'],
    ...common,
  });
  const weight = new Gauge({
    name: 'nginx_canary_weight',
    help: "Percent of the Nginx's pods on the canary's revision.",
    labelNames: ['namespace', 'name'],
    ...common,
  });
  const analysis = new Gauge({
    name: 'nginx_analysis_phase',
    help: "1 for the phase of each canary's newest analysis run.",
    labelNames: ['namespace', 'name', 'phase'],
    ...common,
  });
  const gauges = [phase, step, weight, analysis];
}
