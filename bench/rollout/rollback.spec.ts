import { describe, expect, it } from 'vitest';
import type { NginxCanaryStatus } from '../../libs/nginx-api/src/index.js';
import { analysisFailedAt } from './rollback.js';

const measurement = (at: string, phase: 'Successful' | 'Failed') => ({ at, query: 'q', value: 0.2, phase });
const aborted = (overrides: Partial<NginxCanaryStatus> = {}): NginxCanaryStatus => ({
  revision: 'r2',
  step: 1,
  weight: 50,
  phase: 'Aborted',
  abortedBy: 'r2-1-errors',
  analysisRuns: [
    {
      name: 'r2-1-errors',
      templateName: 'errors',
      step: 1,
      phase: 'Failed',
      startedAt: '2026-11-26T10:00:00.000Z',
      measurements: [
        measurement('2026-11-26T10:00:00.500Z', 'Successful'),
        measurement('2026-11-26T10:00:01.250Z', 'Failed'),
      ],
    },
  ],
  ...overrides,
});

describe('analysisFailedAt', () => {
  it('is the time of the last measurement of the run that aborted the canary', () => {
    expect(analysisFailedAt(aborted())).toBe(Date.parse('2026-11-26T10:00:01.250Z'));
  });

  it('is undefined while the canary is not aborted, or when no run aborted it', () => {
    expect(analysisFailedAt(undefined)).toBeUndefined();
    expect(analysisFailedAt(aborted({ phase: 'Paused' }))).toBeUndefined();
    expect(analysisFailedAt(aborted({ abortedBy: undefined }))).toBeUndefined();
    expect(analysisFailedAt(aborted({ abortedBy: 'r2-1-other' }))).toBeUndefined();
  });
});
