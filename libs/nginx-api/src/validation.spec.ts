import { describe, expect, it } from 'vitest';
import { nameError, rulesSkipped, validateNginx } from './validation.js';

const valid = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'my-deployment' },
  spec: { replicas: 2 },
};
const fields = (object: unknown, partial = false) =>
  validateNginx(object, { partial }).map((e) => `${e.reason} ${e.field}`);

describe('validateNginx', () => {
  it('accepts the seed manifest and an image', () => {
    expect(validateNginx(valid)).toEqual([]);
    expect(validateNginx({ ...valid, spec: { replicas: 0, image: 'nginx:1.27' } })).toEqual([]);
  });

  it.each([
    [-1, 'FieldValueInvalid', 'should be greater than or equal to 0'],
    [1001, 'FieldValueInvalid', 'should be less than or equal to 1000'],
    [1.5, 'FieldValueTypeInvalid', 'must be of type integer, not number'],
    ['two', 'FieldValueTypeInvalid', 'must be of type integer, not string'],
    [null, 'FieldValueRequired', 'Required value'],
  ])('names spec.replicas for %j', (replicas, reason, message) => {
    const [error, ...rest] = validateNginx({ ...valid, spec: { replicas } });
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ field: 'spec.replicas', reason });
    expect(error!.message).toContain(message);
  });

  it('checks the spec rules after a schema error as the API server does, unless that error blocks them', () => {
    const both = { ...valid, spec: { replicas: -1, minReadySeconds: 700 } };
    expect(fields(both)).toEqual([
      'FieldValueInvalid spec.replicas',
      'FieldValueInvalid spec.progressDeadlineSeconds',
    ]);
    expect(rulesSkipped(validateNginx(both))).toBe(false);
    const typed = { ...valid, spec: { replicas: 'two', minReadySeconds: 700 } };
    expect(fields(typed)).toEqual(['FieldValueTypeInvalid spec.replicas']);
    expect(rulesSkipped(validateNginx(typed))).toBe(true);
  });

  it('requires spec and spec.replicas, except in a patch', () => {
    expect(fields({ ...valid, spec: undefined })).toEqual(['FieldValueRequired spec']);
    expect(fields({ ...valid, spec: {} })).toEqual(['FieldValueRequired spec.replicas']);
    expect(fields({ spec: { image: 'x' } }, true)).toEqual([]);
    expect(fields({ spec: { replicas: null } }, true)).toEqual(['FieldValueRequired spec.replicas']);
    expect(fields({ spec: { image: null } }, true)).toEqual([]);
  });

  it('reports unknown fields, wrong apiVersion and kind, bad names', () => {
    expect(fields({ ...valid, spec: { replicas: 1, replica: 2 }, extra: true })).toEqual([
      'FieldValueUnknown spec.replica',
      'FieldValueUnknown extra',
    ]);
    expect(fields({ ...valid, apiVersion: 'apps/v1', kind: 'Deployment' })).toEqual([
      'FieldValueNotSupported apiVersion',
      'FieldValueNotSupported kind',
    ]);
    expect(fields({ ...valid, metadata: { name: 'Bad_Name' } })).toEqual(['FieldValueInvalid metadata.name']);
    expect(fields([])).toEqual(['FieldValueInvalid ']);
    expect(fields({ ...valid, spec: { replicas: 1, image: '' } })).toEqual(['FieldValueInvalid spec.image']);
  });

  it('holds names to a label value: 63 lowercase characters', () => {
    expect(nameError('a'.repeat(63))).toBeUndefined();
    expect(nameError('a'.repeat(64))).toMatch(/no more than 63/);
    expect(nameError('a.b')).toMatch(/RFC 1123 label/);
    expect(nameError('-a')).toBeDefined();
  });
});

describe('validateNginx and inherited property names', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'reports a spec or top-level key named %s as an unknown field',
    (key) => {
      const spec = JSON.parse(`{"replicas": 1, "${key}": {"a": 1}}`) as Record<string, unknown>;
      const object = JSON.parse(
        `{"apiVersion": "mycompany.com/v1", "kind": "Nginx", "metadata": {"name": "w"}, "${key}": 1}`,
      ) as Record<string, unknown>;
      expect(validateNginx({ ...object, spec })).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: `spec.${key}`, reason: 'FieldValueUnknown' }),
          expect.objectContaining({ field: key, reason: 'FieldValueUnknown' }),
        ]),
      );
    },
  );
});
