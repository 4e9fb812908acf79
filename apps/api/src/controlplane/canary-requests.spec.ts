import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { promoteOptions, unservedMethod } from './canary-requests.js';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as StatusException).code;
  }
  return undefined;
};

describe('canary requests', () => {
  it('reads ?full and ?step, refusing anything else with 400', () => {
    expect(promoteOptions({})).toEqual({ full: false });
    expect(promoteOptions({ full: 'true', step: '2' })).toEqual({ full: true, step: 2 });
    expect(code(() => promoteOptions({ full: 'yes' }))).toBe(400);
    expect(code(() => promoteOptions({ step: '-1' }))).toBe(400);
    expect(code(() => promoteOptions({ step: ['1', '2'] }))).toBe(400);
  });
  it('answers another method than POST 405 MethodNotAllowed, naming the method and the request', () => {
    expect(unservedMethod('GET', 'promote').body).toMatchObject({
      kind: 'Status',
      code: 405,
      reason: 'MethodNotAllowed',
      message: 'GET is not supported on promote: a promote is a POST',
    });
  });
});
