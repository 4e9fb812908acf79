import { describe, expect, it } from 'vitest';
import { LABEL_KEYS_RULE, QUALIFIED_NAME_PATTERN, isQualifiedName, twinRuleErrors } from './item-rules.js';
import { nginxSpecSchema } from './schema.js';

describe('isQualifiedName', () => {
  it.each([
    'disktype',
    'kubernetes.io/hostname',
    'topology.kubernetes.io/zone',
    'A_b.c-9',
    'k'.repeat(63),
    `${'a'.repeat(253)}/b`,
  ])('takes %s', (key) => expect(isQualifiedName(key)).toBe(true));

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
  ])('refuses %j', (key) => expect(isQualifiedName(key)).toBe(false));
});

describe('the twin rules', () => {
  it("hand CEL the pattern's backslashes escaped, so its string reads as the same regular expression", () => {
    const literal = /k\.matches\('(.*?)'\)/.exec(LABEL_KEYS_RULE.rule)![1]!;
    expect(literal.replaceAll('\\\\', '\\')).toBe(QUALIFIED_NAME_PATTERN);
  });

  it('are found wherever the schema carries them, arrays and nesting included', () => {
    const spec = {
      replicas: 1,
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
    expect(twinRuleErrors(nginxSpecSchema, spec, 'spec').map((e) => e.field)).toEqual([
      'spec.tolerations[1]',
      'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector.matchLabels',
    ]);
  });
});
