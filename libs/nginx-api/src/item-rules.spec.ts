import { describe, expect, it } from 'vitest';
import { celRuleErrors } from './cel-rules.js';
import { LABEL_KEYS_RULE, QUALIFIED_NAME_PATTERN } from './item-rules.js';
import { nginxSpecSchema } from './schema.js';

/** The causes of the CEL rules alone for `spec`. */
const ruleFields = (spec: Record<string, unknown>) =>
  celRuleErrors(nginxSpecSchema, { replicas: 1, ...spec }, 'spec').map((e) => e.field);

describe('the label-key rule (CEL, as the API server runs it)', () => {
  it.each([
    'disktype',
    'kubernetes.io/hostname',
    'topology.kubernetes.io/zone',
    'A_b.c-9',
    'k'.repeat(63),
    `${'a'.repeat(253)}/b`,
  ])('takes %s', (key) => expect(ruleFields({ nodeSelector: { [key]: 'x' } })).toEqual([]));

  it.each([
    '',
    'Bad Key',
    '-a',
    'a-',
    '/a',
    'a/',
    'Upper.io/a',
    'a/b/c',
    'k'.repeat(64),
    `${'a'.repeat(254)}/b`,
    'ünï',
  ])('refuses %j', (key) =>
    expect(ruleFields({ nodeSelector: { [key]: 'x' } })).toEqual(['spec.nodeSelector']),
  );

  it("hands CEL the pattern's backslashes escaped, so its string reads as the same regular expression", () => {
    const literal = /k\.matches\('(.*?)'\)/.exec(LABEL_KEYS_RULE.rule)![1]!;
    expect(literal.replaceAll('\\\\', '\\')).toBe(QUALIFIED_NAME_PATTERN);
  });
});

describe('celRuleErrors', () => {
  it('finds the rules wherever the schema carries them, arrays and nesting included', () => {
    const spec = {
      tolerations: [{ key: 'a' }, { key: 'b', operator: 'Exists', value: 'c' }],
      affinity: {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: { ok: 'x' } }, topologyKey: 'k' },
            { labelSelector: { matchLabels: { 'not ok': 'x' } }, topologyKey: 'k' },
          ],
        },
      },
    };
    expect(ruleFields(spec)).toEqual([
      'spec.tolerations[1]',
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector.matchLabels',
    ]);
  });

  it('reads integers as CEL ints and compares quantities', () => {
    expect(ruleFields({ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } })).toEqual([
      'spec.strategy.rollingUpdate',
    ]);
    expect(ruleFields({ resources: { requests: { cpu: '1500m' }, limits: { cpu: 2 } } })).toEqual([]);
    expect(ruleFields({ resources: { requests: { cpu: 2 }, limits: { cpu: '1.5' } } })).toEqual([
      'spec.resources',
    ]);
  });

  it('reports a rule that cannot be evaluated as the API server does, at its node', () => {
    const [error] = celRuleErrors(
      nginxSpecSchema,
      { replicas: 1, resources: { requests: { cpu: 'lots' }, limits: { cpu: '1' } } },
      'spec',
    );
    expect(error).toMatchObject({ field: 'spec.resources', reason: 'FieldValueInvalid' });
  });

  it('skips nulls and, in a patch, the rules that relate fields the patch may not carry', () => {
    expect(
      ruleFields({ service: { nodePort: null }, tolerations: [{ key: null, operator: 'Equal' }] }),
    ).toEqual(['spec.tolerations[0]']);
    const patch = { minReadySeconds: 900, nodeSelector: { 'not ok': 'x' } };
    expect(celRuleErrors(nginxSpecSchema, patch, 'spec', { partial: true }).map((e) => e.field)).toEqual([
      'spec.nodeSelector',
    ]);
  });
});
