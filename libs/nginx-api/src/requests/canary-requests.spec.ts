import { ANNOTATION_ABORT, ANNOTATION_PROMOTE } from '../names.js';
import { podTemplateOf } from '../pod-template.js';
import { revisionOf } from '../template-revision.js';
import type { Nginx } from '../types.js';
import { describe, expect, it } from 'vitest';
import { abortPlan, promotePlan } from './canary-requests.js';
import { RequestRefused } from './request-refused.js';

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
    return (error as RequestRefused).code;
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
});
