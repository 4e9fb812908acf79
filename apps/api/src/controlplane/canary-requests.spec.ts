import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, podTemplateOf, revisionOf, type Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { abortPlan, promoteOptions, promotePlan, unservedMethod } from './canary-requests.js';

const spec = {
  replicas: 4,
  image: 'nginx:1.27',
  strategy: { type: 'Canary' as const, canary: { steps: [{ pause: {} }] } },
};
const REV = revisionOf(podTemplateOf(spec));
const nginx = (
  canary?: Partial<NonNullable<Nginx['status']>['canary']>,
  extra: Partial<Nginx['spec']> = {},
): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'ns', resourceVersion: '7' },
  spec: { ...spec, ...extra },
  status: canary ? { canary: { revision: REV, step: 0, weight: 0, phase: 'Paused', ...canary } } : {},
});
const code = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as StatusException).code;
  }
  return undefined;
};

describe('canary requests', () => {
  it('promote annotates <revision>/<step>, or /full, with the resourceVersion as precondition', () => {
    expect(promotePlan(nginx({}), { full: false }).patch).toEqual({
      metadata: { resourceVersion: '7', annotations: { [ANNOTATION_PROMOTE]: `${REV}/0` } },
    });
    expect(promotePlan(nginx({}), { full: true, step: 0 }).patch).toMatchObject({
      metadata: { annotations: { [ANNOTATION_PROMOTE]: `${REV}/full` } },
    });
  });
  it('abort annotates the revision', () => {
    expect(abortPlan(nginx({ phase: 'Progressing' })).patch).toMatchObject({
      metadata: { annotations: { [ANNOTATION_ABORT]: REV } },
    });
  });
  it('writes nothing when the same request is there already', () => {
    const asked = nginx({});
    asked.metadata.annotations = { [ANNOTATION_ABORT]: REV };
    expect(abortPlan(asked).patch).toBeUndefined();
  });
  it('refuses with 409 when no canary is in progress or the step is not the current one', () => {
    expect(code(() => promotePlan(nginx(), { full: false }))).toBe(409);
    expect(code(() => abortPlan(nginx({ revision: 'older' })))).toBe(409);
    expect(code(() => abortPlan(nginx({ phase: 'Aborted' })))).toBe(409);
    expect(code(() => promotePlan(nginx({ phase: 'Promoted' }), { full: true }))).toBe(409);
    expect(code(() => promotePlan(nginx({}, { strategy: { type: 'RollingUpdate' } }), { full: false }))).toBe(
      409,
    );
    expect(code(() => promotePlan(nginx({}), { full: false, step: 1 }))).toBe(409);
  });
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
