/**
 * The Nest token of the AnalysisMeasurer the controller's canary analysis steps use (analysis/analysis-run.ts).
 * Optional: without a provider, each measurement is Inconclusive ("no analysis provider") and the step pauses.
 */
export const ANALYSIS_MEASURER = Symbol('AnalysisMeasurer');
