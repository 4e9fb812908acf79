import { describe, expect, it } from 'vitest';
import type { JsonSchema } from './schema.js';
import { nameError, rulesSkipped, validateAgainst, validateNginx } from './validation.js';

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

describe('validateAgainst and maps', () => {
  const map: JsonSchema = {
    type: 'object',
    maxProperties: 2,
    additionalProperties: { type: 'string', maxLength: 3 },
  };

  it('checks each value against additionalProperties and the count against maxProperties', () => {
    expect(validateAgainst(map, { a: 'x', b: 'yyy' }, 'm')).toEqual([]);
    expect(validateAgainst(map, { a: 'long', b: 7 }, 'm').map((e) => `${e.reason} ${e.field}`)).toEqual([
      'FieldValueTooLong m.a',
      'FieldValueTypeInvalid m.b',
    ]);
    expect(validateAgainst(map, { a: '', b: '', c: '' }, 'm').map((e) => e.reason)).toEqual([
      'FieldValueTooMany',
    ]);
    expect(validateAgainst(map, ['a'], 'm').map((e) => e.reason)).toEqual(['FieldValueTypeInvalid']);
  });

  it('takes null as no value (a removal in a patch), as for declared properties', () => {
    expect(validateAgainst(map, { a: null }, 'm', { partial: true })).toEqual([]);
  });
});

describe('validateNginx and the scheduling fields', () => {
  const spec = (fields: Record<string, unknown>) => ({ ...valid, spec: { replicas: 1, ...fields } });
  const toleration = (fields: Record<string, unknown>) => spec({ tolerations: [fields] });
  const spread = (fields: Record<string, unknown>) =>
    spec({
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', ...fields },
      ],
    });
  const nodeTerm = (expression: Record<string, unknown>) =>
    spec({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [expression] }],
          },
        },
      },
    });

  it('accepts what a pod spec takes', () => {
    expect(
      validateNginx(
        spec({
          nodeSelector: { 'kubernetes.io/os': 'linux', disktype: 'ssd', empty: '' },
          tolerations: [
            { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
            { operator: 'Exists' },
            {
              key: 'node.kubernetes.io/unreachable',
              operator: 'Exists',
              effect: 'NoExecute',
              tolerationSeconds: 30,
            },
          ],
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'type', operator: 'In', values: ['kwok'] }] },
                ],
              },
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'Exists' }] } },
              ],
            },
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                {
                  labelSelector: { matchLabels: { 'mycompany.com/nginx': 'web' } },
                  topologyKey: 'kubernetes.io/hostname',
                },
              ],
            },
          },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 },
            { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' },
          ],
        }),
      ),
    ).toEqual([]);
    expect(validateNginx(spec({ topologySpreadConstraints: [] }))).toEqual([]);
  });

  it.each([
    [
      'a nodeSelector value over 63',
      spec({ nodeSelector: { a: 'x'.repeat(64) } }),
      'FieldValueTooLong spec.nodeSelector.a',
    ],
    [
      'a nodeSelector value of bad characters',
      spec({ nodeSelector: { a: 'b c' } }),
      'FieldValueInvalid spec.nodeSelector.a',
    ],
    [
      'a nodeSelector key with a space',
      spec({ nodeSelector: { 'Bad Key': 'x' } }),
      'FieldValueInvalid spec.nodeSelector',
    ],
    [
      'a nodeSelector key of 64',
      spec({ nodeSelector: { ['k'.repeat(64)]: 'x' } }),
      'FieldValueInvalid spec.nodeSelector',
    ],
    [
      'a nodeSelector key with an empty prefix',
      spec({ nodeSelector: { '/a': 'x' } }),
      'FieldValueInvalid spec.nodeSelector',
    ],
    [
      'a nodeSelector key of a 254 prefix',
      spec({ nodeSelector: { [`${'a'.repeat(254)}/b`]: 'x' } }),
      'FieldValueInvalid spec.nodeSelector',
    ],
    [
      'a nodeSelector value not a string',
      spec({ nodeSelector: { a: 1 } }),
      'FieldValueTypeInvalid spec.nodeSelector.a',
    ],
    [
      'a toleration operator',
      toleration({ key: 'a', operator: 'Near' }),
      'FieldValueNotSupported spec.tolerations[0].operator',
    ],
    [
      'a toleration effect',
      toleration({ key: 'a', effect: 'Evict' }),
      'FieldValueNotSupported spec.tolerations[0].effect',
    ],
    [
      'Exists with a value',
      toleration({ key: 'a', operator: 'Exists', value: 'b' }),
      'FieldValueInvalid spec.tolerations[0]',
    ],
    ['no key without Exists', toleration({ value: 'b' }), 'FieldValueInvalid spec.tolerations[0]'],
    [
      'negative tolerationSeconds',
      toleration({ key: 'a', effect: 'NoExecute', tolerationSeconds: -1 }),
      'FieldValueInvalid spec.tolerations[0].tolerationSeconds',
    ],
    [
      'tolerationSeconds without NoExecute',
      toleration({ key: 'a', tolerationSeconds: 5 }),
      'FieldValueInvalid spec.tolerations[0]',
    ],
    [
      'an unknown toleration field',
      toleration({ key: 'a', keys: 'b' }),
      'FieldValueUnknown spec.tolerations[0].keys',
    ],
    ['maxSkew 0', spread({ maxSkew: 0 }), 'FieldValueInvalid spec.topologySpreadConstraints[0].maxSkew'],
    [
      'whenUnsatisfiable',
      spread({ whenUnsatisfiable: 'Sometimes' }),
      'FieldValueNotSupported spec.topologySpreadConstraints[0].whenUnsatisfiable',
    ],
    [
      'no topologyKey',
      spec({ topologySpreadConstraints: [{ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway' }] }),
      'FieldValueRequired spec.topologySpreadConstraints[0].topologyKey',
    ],
    [
      'minDomains with ScheduleAnyway',
      spread({ minDomains: 2 }),
      'FieldValueInvalid spec.topologySpreadConstraints[0]',
    ],
    [
      'matchLabelKeys without labelSelector',
      spread({ matchLabelKeys: ['a'] }),
      'FieldValueInvalid spec.topologySpreadConstraints[0]',
    ],
    [
      'two constraints of one key and policy',
      spec({
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'k', whenUnsatisfiable: 'ScheduleAnyway' },
          { maxSkew: 2, topologyKey: 'k', whenUnsatisfiable: 'ScheduleAnyway' },
        ],
      }),
      'FieldValueDuplicate spec.topologySpreadConstraints[1]',
    ],
    [
      'a node affinity operator',
      nodeTerm({ key: 'a', operator: 'Near' }),
      'FieldValueNotSupported spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator',
    ],
    [
      'a misspelt affinity field',
      spec({ affinity: { podAntiAffinity: { requiredDuringScheduling: [] } } }),
      'FieldValueUnknown spec.affinity.podAntiAffinity.requiredDuringScheduling',
    ],
    [
      'a pod affinity term without topologyKey',
      spec({
        affinity: {
          podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {} }] },
        },
      }),
      'FieldValueRequired spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
    ],
    [
      'a matchLabels key',
      spec({
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { 'a b': 'c' } }, topologyKey: 'k' },
            ],
          },
        },
      }),
      'FieldValueInvalid spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels',
    ],
  ])('refuses %s', (_, object, error) => {
    expect(fields(object)).toEqual([error]);
  });

  it('says the first item of a list-type map that is no object must be one, and then compares no keys (as the API server)', () => {
    // Found by test/nginx-validation-property.test.ts.
    const constraint = { maxSkew: 1, topologyKey: 'k', whenUnsatisfiable: 'ScheduleAnyway' };
    expect(fields(spec({ topologySpreadConstraints: [[], constraint, 'x', null] }))).toEqual([
      'FieldValueInvalid spec.topologySpreadConstraints[0]',
      'FieldValueTypeInvalid spec.topologySpreadConstraints[0]',
      'FieldValueTypeInvalid spec.topologySpreadConstraints[2]',
      'FieldValueTypeInvalid spec.topologySpreadConstraints[3]',
    ]);
    // Two items without the key are duplicates, unless an item that is no object stopped the comparison.
    const fieldsOf = (analysis: unknown[]) =>
      fields(spec({ analysis })).filter((field) => /analysis\[\d\]$/.test(field));
    expect(fieldsOf([{}, {}])).toEqual(['FieldValueDuplicate spec.analysis[1]']);
    // Each duplicated key once, at its first repeat (kube-apiserver's answer to three items without a name).
    expect(fieldsOf([{}, {}, {}])).toEqual(['FieldValueDuplicate spec.analysis[1]']);
    expect(fieldsOf([{ name: 'a' }, { name: 'a' }, {}, { name: 'a' }, {}])).toEqual([
      'FieldValueDuplicate spec.analysis[1]',
      'FieldValueDuplicate spec.analysis[4]',
    ]);
    expect(fieldsOf([{}, 'x', {}])).toEqual([
      'FieldValueInvalid spec.analysis[1]',
      'FieldValueTypeInvalid spec.analysis[1]',
    ]);
  });

  it('names the broken rule as the API server does', () => {
    expect(validateNginx(toleration({ key: 'a', operator: 'Exists', value: 'b' }))).toEqual([
      {
        field: 'spec.tolerations[0]',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: value must be empty when operator is Exists',
      },
    ]);
  });

  it('checks the keys a patch sets, and not those it removes', () => {
    expect(fields({ spec: { nodeSelector: { 'Bad Key': null, good: 'x' } } }, true)).toEqual([]);
    expect(fields({ spec: { nodeSelector: { 'Bad Key': 'x' } } }, true)).toEqual([
      'FieldValueInvalid spec.nodeSelector',
    ]);
  });
});

describe('validateAgainst and lists', () => {
  it('counts items against minItems and maxItems, as kube-apiserver words them', () => {
    const list: JsonSchema = { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } };
    expect(validateAgainst(list, ['a'], 'l')).toEqual([]);
    expect(validateAgainst(list, [], 'l')).toEqual([
      {
        field: 'l',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 0: l in body should have at least 1 items',
      },
    ]);
    expect(validateAgainst(list, ['a', 'b', 'c'], 'l').map((e) => e.reason)).toEqual(['FieldValueTooMany']);
  });
});
