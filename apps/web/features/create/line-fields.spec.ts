import { describe, expect, it } from 'vitest';
import { formatCanarySteps, formatNodeSelector, parseCanarySteps, parseNodeSelector } from './line-fields';

describe('nodeSelector lines', () => {
  it('reads key=value lines, skipping blank ones', () => {
    expect(parseNodeSelector('disktype = ssd\n\nzone=a=b\nbare')).toEqual({
      disktype: 'ssd',
      zone: 'a=b',
      bare: '',
    });
    expect(parseNodeSelector('  \n')).toBeUndefined();
  });

  it('writes a map back as the same lines', () => {
    const map = { disktype: 'ssd', 'kubernetes.io/os': 'linux' };
    expect(parseNodeSelector(formatNodeSelector(map))).toEqual(map);
    expect(formatNodeSelector(undefined)).toBe('');
    expect(formatNodeSelector(['x'])).toBe('');
  });
});

describe('canary step lines', () => {
  it('reads each kind of step, in order', () => {
    expect(parseCanarySteps('20%\npause 5m\n analysis error-rate \npause\n100 %')).toEqual([
      { setWeight: 20 },
      { pause: { duration: '5m' } },
      { analysis: { templateName: 'error-rate' } },
      { pause: {} },
      { setWeight: 100 },
    ]);
    expect(parseCanarySteps('\n')).toBeUndefined();
  });

  it('sends a line it cannot read as it stands, for the schema check to name', () => {
    expect(parseCanarySteps('wait a bit')).toEqual(['wait a bit']);
  });

  it('writes steps back as the same lines', () => {
    const text = '20%\npause 1h\npause\nanalysis errors';
    expect(formatCanarySteps(parseCanarySteps(text))).toBe(text);
    expect(formatCanarySteps(undefined)).toBe('');
  });
});
