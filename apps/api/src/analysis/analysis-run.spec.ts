import { describe, expect, it } from 'vitest';
import type { NginxAnalysisMeasurement, NginxAnalysisTemplate } from '@ngx/nginx-api';
import { nextMeasurementIn, runPhase } from './analysis-run.js';

const template: NginxAnalysisTemplate = {
  name: 'error-rate',
  prometheus: { address: 'http://prometheus:9090', query: 'up' },
  successCondition: 'result < 0.01',
  interval: '30s',
  count: 4,
  failureLimit: 1,
};
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();
const taken = (...phases: NginxAnalysisMeasurement['phase'][]) =>
  phases.map((phase, i) => ({ at: at(i * 30), query: 'up', phase }));

describe('runPhase', () => {
  it.each([
    [[], 'Running'],
    [['Successful', 'Successful'], 'Running'],
    [['Successful', 'Failed', 'Successful', 'Successful'], 'Successful'],
    [['Failed', 'Failed'], 'Failed'],
    [['Inconclusive'], 'Inconclusive'],
    [['Successful', 'Error'], 'Error'],
  ] as const)('after %j is %s', (phases, phase) => {
    expect(runPhase(template, taken(...phases))).toBe(phase);
  });

  it('takes one measurement when the template says no count', () => {
    expect(runPhase({ ...template, count: undefined }, taken('Successful'))).toBe('Successful');
  });
});

describe('nextMeasurementIn', () => {
  const now = Date.parse(at(40));
  it('measures at once when nothing was measured, and interval after the last otherwise', () => {
    expect(nextMeasurementIn(template, { measurements: [] }, now)).toBe(0);
    expect(nextMeasurementIn(template, { measurements: taken('Successful', 'Successful') }, now)).toBe(
      20_000,
    );
    expect(nextMeasurementIn(template, { measurements: taken('Successful') }, now)).toBe(0);
  });

  it('is undefined once the run has ended', () => {
    expect(nextMeasurementIn(template, { measurements: taken('Failed', 'Failed') }, now)).toBeUndefined();
  });
});
