import { CONDITION_PROGRESSING, type Nginx } from '@ngx/nginx-api';
import { Gauge, type Registry } from 'prom-client';

/** How long one pass over the cache serves the gauges read after it (one scrape). */
const FILL_REUSE_MS = 100;

/** One Nginx's rollout as the per-Nginx gauges report it. */
export interface RolloutSeries {
  namespace: string;
  name: string;
  /** Its Progressing condition's reason (RollingUpdate, ReplicasReady, Canary, ProgressDeadlineExceeded, …). */
  phase: string;
  /** Where its canary stands, when it has one. */
  canary?: { step: number; weight: number };
  /** The phase of its canary's newest analysis run (Running, Successful, Failed, Inconclusive, Error). */
  analysis?: string;
}

/** What the gauges say of `nginx`, from its status alone. Pure. */
export function rolloutSeries(nginx: Nginx): RolloutSeries {
  const { namespace = '', name = '' } = nginx.metadata;
  const progressing = nginx.status?.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  const canary = nginx.status?.canary;
  const newest = canary?.analysisRuns?.reduce((a, b) =>
    Date.parse(b.startedAt) >= Date.parse(a.startedAt) ? b : a,
  );
  return {
    namespace,
    name,
    phase: progressing?.reason ?? 'Unknown',
    ...(canary ? { canary: { step: canary.step, weight: canary.weight } } : {}),
    ...(newest ? { analysis: newest.phase } : {}),
  };
}

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
      const series = rolloutSeries(nginx);
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
