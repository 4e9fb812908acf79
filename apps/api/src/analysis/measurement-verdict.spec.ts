import { describe, expect, it } from 'vitest';
import type { NginxAnalysisTemplate } from '@ngx/nginx-api';
import { judgeValue } from './measurement-verdict.js';

const template: NginxAnalysisTemplate = {
  name: 'error-rate',
  prometheus: { address: 'http://prometheus:9090', query: 'up' },
  successCondition: 'result < 0.01',
};

describe('judgeValue', () => {
  it('is Successful when the success condition is met, Failed naming it otherwise', () => {
    expect(judgeValue(template, 0.001)).toEqual({ phase: 'Successful', value: 0.001 });
    expect(judgeValue(template, 0.05)).toEqual({
      phase: 'Failed',
      value: 0.05,
      message: 'result 0.05 does not meet successCondition result < 0.01',
    });
  });

  it('fails a measurement meeting failureCondition before asking successCondition', () => {
    const both = { ...template, successCondition: 'result < 1', failureCondition: 'result > 0.5' };
    expect(judgeValue(both, 0.7)).toEqual({
      phase: 'Failed',
      value: 0.7,
      message: 'result 0.7 meets failureCondition result > 0.5',
    });
    expect(judgeValue(both, 0.2)).toEqual({ phase: 'Successful', value: 0.2 });
    expect(judgeValue(both, 2).phase).toBe('Failed');
  });

  it('keeps NaN and infinities out of value, and fails NaN unless a condition asks isNaN', () => {
    expect(judgeValue(template, NaN)).toEqual({
      phase: 'Failed',
      value: undefined,
      message:
        'result NaN does not meet successCondition result < 0.01 (NaN meets no condition that does not ask isNaN(result))',
    });
    expect(judgeValue({ ...template, successCondition: 'isNaN(result) || result < 0.01' }, NaN)).toEqual({
      phase: 'Successful',
      value: undefined,
    });
    expect(judgeValue({ ...template, successCondition: 'result > 1' }, Infinity)).toEqual({
      phase: 'Successful',
      value: undefined,
    });
    expect(judgeValue(template, -Infinity)).toEqual({ phase: 'Successful', value: undefined });
  });

  it('is an Error when a condition does not parse (written before the API checked them)', () => {
    expect(judgeValue({ ...template, failureCondition: 'errors > 1' }, 0)).toEqual({
      phase: 'Error',
      value: 0,
      message:
        'failureCondition "errors > 1": unknown identifier "errors" at position 1: only result and isNaN(…) are known',
    });
  });
});
