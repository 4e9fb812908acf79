import { describe, expect, it } from 'vitest';
import type { NginxCanaryStatus } from '@ngx/nginx-api';
import { canaryMove } from './canary-audit.js';

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
