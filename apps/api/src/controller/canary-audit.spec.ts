import { describe, expect, it } from 'vitest';
import type { NginxBlueGreenStatus, NginxCanaryStatus } from '@ngx/nginx-api';
import { blueGreenMove, canaryMove } from './canary-audit.js';

const at = (over: Partial<NginxCanaryStatus>): NginxCanaryStatus => ({
  revision: 'r2',
  step: 1,
  weight: 20,
  phase: 'Progressing',
  ...over,
});

describe('canaryMove', () => {
  it('is nothing when neither the step nor the phase moved', () => {
    expect(canaryMove(at({}), at({ weight: 20, message: 'x' }))).toBeUndefined();
    expect(canaryMove(at({}), undefined)).toBeUndefined();
  });

  it('names a new canary, a step, a pause and a promotion', () => {
    expect(canaryMove(undefined, at({ step: 0 }))).toEqual({
      kind: 'canary',
      reason: 'started',
      step: 0,
      revision: 'r2',
    });
    expect(canaryMove(at({ revision: 'r1' }), at({ step: 0 }))?.reason).toBe('started');
    expect(canaryMove(at({}), at({ step: 2 }))?.reason).toBe('step 2');
    expect(canaryMove(at({}), at({ phase: 'Paused' }))?.reason).toBe('paused');
    expect(canaryMove(at({}), at({ step: 4, phase: 'Promoted' }))?.reason).toBe('promoted');
  });

  it('names the analysis run that aborted it', () => {
    expect(canaryMove(at({ step: 2 }), at({ step: 2, phase: 'Aborted', abortedBy: 'r2-2-errors' }))).toEqual({
      kind: 'canary',
      reason: 'aborted',
      step: 2,
      revision: 'r2',
      object: 'r2-2-errors',
    });
    expect(canaryMove(at({}), at({ phase: 'Aborted' }))).not.toHaveProperty('object');
  });
});

describe('blueGreenMove', () => {
  const at = (more: Partial<NginxBlueGreenStatus> = {}): NginxBlueGreenStatus => ({
    revision: 'green',
    activeRevision: 'blue',
    phase: 'Previewing',
    ...more,
  });
  const reason = (previous: NginxBlueGreenStatus | undefined, next: NginxBlueGreenStatus) =>
    blueGreenMove(previous, next)?.reason;

  it('names a new preview, the switch, a pause, an abort and the end', () => {
    expect(reason(undefined, at())).toBe('preview started');
    expect(reason(at(), at({ phase: 'Paused' }))).toBe('paused');
    expect(reason(at(), at({ phase: 'Promoting', activeRevision: 'green' }))).toBe('promoted');
    expect(
      reason(
        at({ phase: 'Promoting', activeRevision: 'green' }),
        at({ phase: 'Promoted', activeRevision: 'green' }),
      ),
    ).toBe('completed');
    expect(reason(at({ activeRevision: 'green' }), at({ phase: 'Aborted' }))).toBe('aborted');
  });

  it('is nothing when neither the phase nor the active revision moved, and names the run that aborted it', () => {
    expect(blueGreenMove(at(), at({ previewReadyAt: '2026-11-28T10:00:00Z' }))).toBeUndefined();
    expect(blueGreenMove(at(), at({ phase: 'Aborted', abortedBy: 'green-pre-errors' }))).toEqual({
      kind: 'blue-green',
      reason: 'aborted',
      revision: 'green',
      object: 'green-pre-errors',
    });
  });
});
