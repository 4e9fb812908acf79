import {
  DEFAULT_ANALYSIS_COUNT,
  DEFAULT_ANALYSIS_INTERVAL,
  durationMs,
  type NginxAnalysisMeasurement,
  type NginxAnalysisRun,
  type NginxAnalysisTemplate,
} from '@ngx/nginx-api';

/** Whose numbers an analysis reads: the query's `{{namespace}}`, `{{name}}` and `{{revision}}`. */
export interface AnalysisTarget {
  namespace: string;
  name: string;
  revision: string;
}

/**
 * Takes one measurement of an analysis template. Never throws: an unreachable or failing metrics source is an
 * Inconclusive measurement, an answer that cannot be judged (a malformed query, no data, a vector where one
 * number was expected) an Error one, each with a message that says which.
 */
export interface AnalysisMeasurer {
  measure(
    template: NginxAnalysisTemplate,
    target: AnalysisTarget,
    signal?: AbortSignal,
  ): Promise<NginxAnalysisMeasurement>;
}

/**
 * Where a run stands after `measurements`, in this order: an Error measurement ends it as Error (no later
 * measurement can make a broken query judgeable); more Failed than failureLimit fails it; more Inconclusive than
 * inconclusiveLimit makes it Inconclusive; `count` measurements taken without either is Successful; else Running.
 */
export function runPhase(
  template: NginxAnalysisTemplate,
  measurements: readonly NginxAnalysisMeasurement[],
): NginxAnalysisRun['phase'] {
  const counted = (phase: NginxAnalysisMeasurement['phase']) =>
    measurements.filter((m) => m.phase === phase).length;
  if (counted('Error') > 0) return 'Error';
  if (counted('Failed') > (template.failureLimit ?? 0)) return 'Failed';
  if (counted('Inconclusive') > (template.inconclusiveLimit ?? 0)) return 'Inconclusive';
  if (measurements.length >= (template.count ?? DEFAULT_ANALYSIS_COUNT)) return 'Successful';
  return 'Running';
}

/**
 * Milliseconds from `now` until the run's next measurement is due: 0 for the first (taken at once) or an overdue
 * one, undefined once the run has ended.
 */
export function nextMeasurementIn(
  template: NginxAnalysisTemplate,
  run: Pick<NginxAnalysisRun, 'measurements'>,
  now: number,
): number | undefined {
  if (runPhase(template, run.measurements) !== 'Running') return undefined;
  const last = run.measurements.at(-1);
  if (!last) return 0;
  const due = Date.parse(last.at) + durationMs(template.interval ?? DEFAULT_ANALYSIS_INTERVAL);
  return Math.max(0, due - now);
}
