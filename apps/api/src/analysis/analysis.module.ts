import { Module } from '@nestjs/common';
import { PrometheusMeasurer } from './prometheus-measurer.js';

/** The injection token of the AnalysisMeasurer (an interface, so it needs one). */
export const ANALYSIS_MEASURER: unique symbol = Symbol('AnalysisMeasurer');

/** Provides the AnalysisMeasurer canary steps measure with: Prometheus instant queries (prometheus-measurer.ts). */
@Module({
  providers: [{ provide: ANALYSIS_MEASURER, useFactory: () => new PrometheusMeasurer() }],
  exports: [ANALYSIS_MEASURER],
})
export class AnalysisModule {}
