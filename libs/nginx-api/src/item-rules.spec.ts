import { describe, expect, it } from 'vitest';
import { celRuleErrors } from './cel-rules.js';
import { LABEL_KEYS_RULE, QUALIFIED_NAME_PATTERN } from './item-rules.js';
import { nginxSpecSchema } from './schema.js';
import { validateNginx } from './validation.js';

const nginx = (spec: Record<string, unknown>) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web' },
  spec: { replicas: 1, ...spec },
});

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

  it('hands quantity() only quantities: a huge exponent is a pattern error, not a rule to evaluate', () => {
    // kube-apiserver's quantity() spends minutes of CPU on `1e615202562826` (found by the property test).
    for (const cpu of ['lots', '.6E+615202562826'])
      expect(ruleFields({ resources: { requests: { cpu: '1' }, limits: { cpu } } })).toEqual([]);
    expect(
      validateNginx(nginx({ resources: { requests: { cpu: '1' }, limits: { cpu: '1e100' } } })).map(
        (e) => e.field,
      ),
    ).toEqual(['spec.resources.limits.cpu']);
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
