import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { checkDeleteOptions, checkNginx, checkPatch, checkScale } from './write-checks.js';

const nginx = (spec: unknown = { replicas: 1 }, metadata: Record<string, unknown> = { name: 'web' }) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata,
  spec,
});

function refusal(run: () => void): StatusException {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusException) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('checkNginx', () => {
  it('accepts a valid object', () => {
    expect(() => checkNginx(nginx(), { namespace: 'default' })).not.toThrow();
    expect(() =>
      checkNginx(nginx({ replicas: 1 }, { generateName: 'web-' }), { namespace: 'default' }),
    ).not.toThrow();
  });

  it('answers 422 Invalid with one cause per field', () => {
    const error = refusal(() => checkNginx(nginx({ replicas: -1, image: '' }), { namespace: 'default' }));
    expect(error.code).toBe(422);
    expect(error.body.reason).toBe('Invalid');
    // As the API server: the schema's causes, then the scale subresource's own check of .spec.replicas.
    expect(error.details?.causes?.map((c) => c.field)).toEqual([
      'spec.replicas',
      'spec.image',
      '.spec.replicas',
    ]);
    expect(error.message).toMatch(/^Nginx.mycompany.com "web" is invalid: spec.replicas: Invalid value: -1/);
  });

  it('names .spec.replicas too when spec is not an object, as the scale path cannot read it', () => {
    const error = refusal(() => checkNginx(nginx([1, 'a']), { namespace: 'default' }));
    expect(error.details?.causes).toEqual([
      expect.objectContaining({ field: 'spec', reason: 'FieldValueTypeInvalid' }),
      {
        field: '.spec.replicas',
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: 0: .spec.replicas accessor error: [1 a] is of the type []interface {}, expected map[string]interface{}',
      },
      expect.objectContaining({ field: '<nil>' }),
    ]);
  });

  it('refuses unknown fields with 400 under strict validation only (Warn, the default, lets them through)', () => {
    const strict = refusal(() =>
      checkNginx(nginx({ replicas: 1, size: 2 }), { namespace: 'default', fieldValidation: 'Strict' }),
    );
    expect(strict.code).toBe(400);
    expect(strict.message).toBe(
      'Nginx in version "v1" cannot be handled as a Nginx: strict decoding error: unknown field "spec.size"',
    );
    const alsoInvalid = refusal(() =>
      checkNginx(nginx({ replicas: -1, size: 2 }), { namespace: 'default', fieldValidation: 'Strict' }),
    );
    expect(alsoInvalid.code).toBe(400);
    for (const fieldValidation of ['Warn', 'Ignore', undefined])
      expect(() =>
        checkNginx(nginx({ replicas: 1, size: 2 }), { namespace: 'default', fieldValidation }),
      ).not.toThrow();
  });

  it('refuses a namespace or name that differs from the URL with 400', () => {
    expect(
      refusal(() => checkNginx(nginx(undefined, { name: 'web', namespace: 'x' }), { namespace: 'default' }))
        .message,
    ).toMatch(/namespace of the provided object does not match/);
    expect(refusal(() => checkNginx(nginx(), { namespace: 'default', name: 'other' })).message).toBe(
      'the name of the object (web) does not match the name on the URL (other)',
    );
  });

  it('ignores spec problems on a status update', () => {
    expect(() =>
      checkNginx(nginx({ replicas: -1 }), { namespace: 'default', name: 'web', status: true }),
    ).not.toThrow();
  });
});

describe('checkPatch', () => {
  const target = { namespace: 'default', name: 'web' };
  it('checks merge patches field by field, allowing partial objects and removals of optional fields', () => {
    expect(() => checkPatch({ spec: { image: null } }, 'application/merge-patch+json', target)).not.toThrow();
    expect(
      refusal(() => checkPatch({ spec: { replicas: null } }, 'application/merge-patch+json', target)).code,
    ).toBe(422);
    expect(refusal(() => checkPatch([], 'application/merge-patch+json', target)).code).toBe(400);
  });

  it('checks JSON patch shape and the values put at spec paths', () => {
    expect(() =>
      checkPatch(
        [{ op: 'replace', path: '/spec/replicas', value: 2 }],
        'application/json-patch+json',
        target,
      ),
    ).not.toThrow();
    expect(
      refusal(() =>
        checkPatch(
          [{ op: 'replace', path: '/spec/replicas', value: '2' }],
          'application/json-patch+json',
          target,
        ),
      ).code,
    ).toBe(422);
    expect(
      refusal(() => checkPatch([{ op: 'teleport', path: '/x' }], 'application/json-patch+json', target)).code,
    ).toBe(400);
    expect(refusal(() => checkPatch({}, 'application/json-patch+json', target)).code).toBe(400);
  });

  it('checks the replicas of a scale patch', () => {
    expect(() =>
      checkPatch({ spec: { replicas: 3 } }, 'application/merge-patch+json', {
        ...target,
        subresource: 'scale',
      }),
    ).not.toThrow();
    expect(
      refusal(() =>
        checkPatch({ spec: { replicas: 1001 } }, 'application/merge-patch+json', {
          ...target,
          subresource: 'scale',
        }),
      ).code,
    ).toBe(422);
  });
});

describe('checkScale and checkDeleteOptions', () => {
  it('wants an autoscaling/v1 Scale with replicas in range', () => {
    const scale = {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web' },
      spec: { replicas: 2 },
    };
    expect(() => checkScale(scale, { namespace: 'default', name: 'web' })).not.toThrow();
    const target = { namespace: 'default', name: 'web' };
    expect(refusal(() => checkScale({ ...scale, kind: 'Pod' }, target)).code).toBe(400);
    expect(refusal(() => checkScale({ ...scale, apiVersion: 'autoscaling/v2' }, target)).code).toBe(400);
    // As the API server takes them: no apiVersion or kind, and no replicas (0).
    expect(() => checkScale({ metadata: { name: 'web' }, spec: {} }, target)).not.toThrow();
    const negative = refusal(() => checkScale({ ...scale, spec: { replicas: -1 } }, target));
    expect(negative.code).toBe(422);
    expect(negative.details).toMatchObject({ kind: 'Nginx', group: 'mycompany.com' });
    expect(negative.details?.causes?.map((c) => c.field)).toEqual(['spec.replicas', '.spec.replicas']);
  });

  it('takes DeleteOptions with known values only', () => {
    expect(() =>
      checkDeleteOptions({ propagationPolicy: 'Foreground', preconditions: { uid: 'x' } }),
    ).not.toThrow();
    expect(refusal(() => checkDeleteOptions({ propagationPolicy: 'Later' })).code).toBe(422);
    expect(refusal(() => checkDeleteOptions({ gracePeriodSeconds: -1 })).code).toBe(400);
    expect(refusal(() => checkDeleteOptions('x')).code).toBe(400);
  });
});
