import { TEMPLATE_FIELDS, podTemplateOf, templateFields, type NginxPodTemplate } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import {
  configDiff,
  configText,
  defaultComparison,
  probeText,
  rollbackSummary,
  sideBySideLines,
  templateFieldRows,
  verbText,
} from './revision-diff';

const base: NginxPodTemplate = { image: 'nginx:1.28', port: 80 };

describe('templateFieldRows', () => {
  it('lists every field in a fixed order, none changed for equal templates', () => {
    const rows = templateFieldRows(base, { ...base });
    expect(rows.map((row) => row.field)).toEqual([
      'image',
      'port',
      'health check path',
      'readiness probe',
      'requests cpu',
      'requests memory',
      'limits cpu',
      'limits memory',
      'config',
    ]);
    expect(rows.every((row) => !row.changed)).toBe(true);
    expect(rows.find((row) => row.field === 'config')?.before).toBe('default server');
  });

  it('marks the changed fields with their texts on both sides', () => {
    const after: NginxPodTemplate = {
      image: 'nginx:1.27',
      port: 8080,
      healthCheckPath: '/healthz',
      resources: { requests: { cpu: '100m' }, limits: { memory: '128Mi' } },
    };
    const changed = templateFieldRows(base, after).filter((row) => row.changed);
    expect(changed).toEqual([
      { field: 'image', before: 'nginx:1.28', after: 'nginx:1.27', changed: true },
      { field: 'port', before: '80', after: '8080', changed: true },
      { field: 'health check path', before: 'not set', after: '/healthz', changed: true },
      { field: 'readiness probe', before: 'none', after: 'HTTP GET /healthz on port 8080', changed: true },
      { field: 'requests cpu', before: 'not set', after: '100m', changed: true },
      { field: 'limits memory', before: 'not set', after: '128Mi', changed: true },
    ]);
  });

  it('shows ephemeral storage only when a side sets it, numbers as text', () => {
    const after = { ...base, resources: { limits: { 'ephemeral-storage': '1Gi', cpu: 2 } } };
    const rows = templateFieldRows(base, after);
    expect(rows.find((row) => row.field === 'limits ephemeral-storage')).toMatchObject({ after: '1Gi' });
    expect(rows.find((row) => row.field === 'limits cpu')).toMatchObject({ after: '2', changed: true });
    expect(rows.some((row) => row.field === 'requests ephemeral-storage')).toBe(false);
  });

  it('shows a change of every pod template field', () => {
    for (const name of TEMPLATE_FIELDS) {
      const after = podTemplateOf({ replicas: 1, image: base.image, [name]: templateFields[name].example });
      expect(
        templateFieldRows(base, after).some((row) => row.changed),
        name,
      ).toBe(true);
    }
  });

  it('sees a config change even when the line count is the same', () => {
    const rows = templateFieldRows({ ...base, config: 'a\n' }, { ...base, config: 'b\n' });
    expect(rows.find((row) => row.field === 'config')?.changed).toBe(true);
  });
});

describe('probeText and configText', () => {
  it('describe the probe and the config', () => {
    expect(probeText(base)).toBe('none');
    expect(probeText({ ...base, healthCheckPath: '/' })).toBe('HTTP GET / on port 80');
    expect(configText(base)).toBe('default server');
    expect(configText({ ...base, config: 'one\n' })).toBe('custom (1 line)');
    expect(configText({ ...base, config: 'one\ntwo' })).toBe('custom (2 lines)');
  });
});

describe('sideBySideLines', () => {
  it('keeps equal lines side by side, numbered on each side', () => {
    expect(sideBySideLines('a\nb\n', 'a\nb\n')).toEqual([
      { left: { n: 1, text: 'a' }, right: { n: 1, text: 'a' }, kind: 'same' },
      { left: { n: 2, text: 'b' }, right: { n: 2, text: 'b' }, kind: 'same' },
    ]);
  });

  it('pairs a removed run with the added run after it, the rest added or removed', () => {
    const pairs = sideBySideLines('a\nold1\nold2\nz\n', 'a\nnew1\nz\nextra\n');
    expect(pairs).toEqual([
      { left: { n: 1, text: 'a' }, right: { n: 1, text: 'a' }, kind: 'same' },
      { left: { n: 2, text: 'old1' }, right: { n: 2, text: 'new1' }, kind: 'changed' },
      { left: { n: 3, text: 'old2' }, kind: 'removed' },
      { left: { n: 4, text: 'z' }, right: { n: 3, text: 'z' }, kind: 'same' },
      { right: { n: 4, text: 'extra' }, kind: 'added' },
    ]);
  });

  it('pairs more added than removed lines, and handles an empty side', () => {
    expect(sideBySideLines('x\n', 'y\nw\n').map((pair) => pair.kind)).toEqual(['changed', 'added']);
    expect(sideBySideLines('', 'a\nb')).toEqual([
      { right: { n: 1, text: 'a' }, kind: 'added' },
      { right: { n: 2, text: 'b' }, kind: 'added' },
    ]);
    expect(sideBySideLines('a\n', '')).toEqual([{ left: { n: 1, text: 'a' }, kind: 'removed' }]);
    expect(sideBySideLines('', '')).toEqual([]);
  });

  it('shows every line of both texts exactly once, in order', () => {
    const before = 'server {\n  listen 80;\n  root /a;\n}\n';
    const after = 'server {\n  listen 8080;\n  root /a;\n  index x;\n}\n';
    const pairs = sideBySideLines(before, after);
    expect(pairs.flatMap((pair) => (pair.left ? [pair.left.text] : [])).join('\n') + '\n').toBe(before);
    expect(pairs.flatMap((pair) => (pair.right ? [pair.right.text] : [])).join('\n') + '\n').toBe(after);
  });
});

describe('configDiff', () => {
  it('flags the default server on a side without config', () => {
    const diff = configDiff(base, { ...base, config: 'server {}\n' });
    expect(diff).toEqual({
      beforeDefault: true,
      afterDefault: false,
      lines: [{ right: { n: 1, text: 'server {}' }, kind: 'added' }],
    });
    expect(configDiff(base, base)).toEqual({ beforeDefault: true, afterDefault: true, lines: [] });
  });
});

describe('rollbackSummary', () => {
  it('names each changed field with its value now and after the rollback', () => {
    const current: NginxPodTemplate = { image: 'nginx:1.28', port: 8080, healthCheckPath: '/healthz' };
    const target: NginxPodTemplate = { image: 'nginx:1.27', port: 8080 };
    expect(rollbackSummary(current, target)).toEqual([
      'image nginx:1.28 → nginx:1.27',
      'health check path /healthz → not set',
    ]);
  });

  it('counts the config lines that change', () => {
    const current = { ...base, config: 'a\nb\nc\nd\n' };
    const target = { ...base, config: 'a\nB\nC\nD\ne\nf\n' };
    expect(rollbackSummary(current, target)).toEqual(['config: 3 lines changed, 2 lines added']);
    expect(rollbackSummary(target, current)).toEqual(['config: 3 lines changed, 2 lines removed']);
    expect(rollbackSummary({ ...base, config: 'a' }, { ...base, config: 'b' })).toEqual([
      'config: 1 line changed',
    ]);
  });

  it('says when the config goes to or from the default server', () => {
    expect(rollbackSummary(base, { ...base, config: 'x\ny\n' })).toEqual([
      'config: default server → custom (2 lines)',
    ]);
    expect(rollbackSummary({ ...base, config: 'x\n' }, base)).toEqual([
      'config: custom (1 line) → default server',
    ]);
  });

  it('is empty for equal templates', () => {
    expect(rollbackSummary(base, { ...base })).toEqual([]);
  });
});

describe('defaultComparison', () => {
  const item = (revision: number, current = false) => ({ revision, current });

  it('compares the revision before the current one with the current one', () => {
    expect(defaultComparison([item(4, true), item(3), item(1)])).toEqual({ from: 3, to: 4 });
    // After a rollback renumbered 2 as 5, 4 comes before it.
    expect(defaultComparison([item(5, true), item(4), item(3)])).toEqual({ from: 4, to: 5 });
  });

  it('takes the next higher revision when the current one is the lowest', () => {
    expect(defaultComparison([item(3), item(2), item(1, true)])).toEqual({ from: 2, to: 1 });
  });

  it('falls back to the two newest without a current item, and to one revision against itself', () => {
    expect(defaultComparison([item(2), item(7), item(5)])).toEqual({ from: 5, to: 7 });
    expect(defaultComparison([item(1, true)])).toEqual({ from: 1, to: 1 });
    expect(defaultComparison([])).toBeUndefined();
  });
});

describe('verbText', () => {
  it('reads after the actor, unknown verbs as they are', () => {
    expect(verbText('patch')).toBe('patched');
    expect(verbText('rollback')).toBe('rolled back to it');
    expect(verbText('frobnicate')).toBe('frobnicate');
  });
});
