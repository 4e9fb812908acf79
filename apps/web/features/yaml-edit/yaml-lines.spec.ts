import { describe, expect, it } from 'vitest';
import { causesAtLines, fieldPathSteps, lineOfField, lineStartOffset, yamlProblems } from './yaml-lines';

const manifest = `apiVersion: mycompany.com/v1
kind: Nginx
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 3
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
  resources:
    limits:
      cpu: 500m
  ports:
    - port: 80
    - port: 81
`;

describe('fieldPathSteps', () => {
  it('splits dotted paths, indexes and bracketed keys', () => {
    expect(fieldPathSteps('spec.strategy.rollingUpdate.maxSurge')).toEqual([
      'spec',
      'strategy',
      'rollingUpdate',
      'maxSurge',
    ]);
    expect(fieldPathSteps('spec.ports[1].port')).toEqual(['spec', 'ports', 1, 'port']);
    expect(fieldPathSteps('metadata.labels[app.kubernetes.io/name]')).toEqual([
      'metadata',
      'labels',
      'app.kubernetes.io/name',
    ]);
    expect(fieldPathSteps('metadata.annotations["a.b/c"]')).toEqual(['metadata', 'annotations', 'a.b/c']);
    expect(fieldPathSteps('')).toEqual([]);
  });
});

describe('lineOfField', () => {
  it("finds a key's line", () => {
    expect(lineOfField(manifest, 'spec.replicas')).toBe(8);
    expect(lineOfField(manifest, 'spec.strategy.rollingUpdate.maxSurge')).toBe(12);
    expect(lineOfField(manifest, 'spec.resources.limits.cpu')).toBe(15);
    expect(lineOfField(manifest, 'metadata.labels[app.kubernetes.io/name]')).toBe(6);
  });

  it("finds a list item's line", () => {
    expect(lineOfField(manifest, 'spec.ports[1]')).toBe(18);
    expect(lineOfField(manifest, 'spec.ports[1].port')).toBe(18);
  });

  it('falls back to the nearest parent the text has', () => {
    expect(lineOfField(manifest, 'spec.resources.requests.memory')).toBe(13);
    expect(lineOfField(manifest, 'spec.strategy.rollingUpdate.maxUnavailable')).toBe(11);
    expect(lineOfField(manifest, 'spec.ports[7].port')).toBe(16);
    expect(lineOfField(manifest, 'spec.replicas.nested')).toBe(8);
  });

  it('gives line 1 when nothing of the path is there', () => {
    expect(lineOfField(manifest, 'status.readyReplicas')).toBe(1);
    expect(lineOfField(manifest, '')).toBe(1);
    expect(lineOfField('', 'spec.replicas')).toBe(1);
    expect(lineOfField('- a\n- b\n', 'spec')).toBe(1);
  });

  it('reads what it can of a broken text without throwing', () => {
    expect(lineOfField('spec:\n  replicas: [\n', 'spec.replicas')).toBe(2);
  });
});

describe('yamlProblems', () => {
  it('is empty for a mapping', () => {
    expect(yamlProblems(manifest)).toEqual([]);
  });

  it('gives syntax errors at their line, on one line', () => {
    const problems = yamlProblems('kind: Nginx\nspec:\n  replicas: 1\n image: x\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0].line).toBe(4);
    expect(problems[0].message).not.toContain('\n');
  });

  it('finds an unclosed flow sequence', () => {
    const [problem] = yamlProblems('spec:\n  ports: [1, 2\nkind: Nginx\n');
    expect(problem.line).toBeGreaterThanOrEqual(2);
  });

  it('refuses a top level that is not a mapping', () => {
    expect(yamlProblems('- a\n- b\n')).toEqual([
      { line: 1, message: 'A manifest is a YAML mapping (apiVersion, kind, metadata, spec).' },
    ]);
    expect(yamlProblems('')).toHaveLength(1);
  });
});

describe('causesAtLines', () => {
  it("places each cause at its field's line, in the server's order", () => {
    expect(
      causesAtLines(manifest, [
        { field: 'spec.resources.limits.cpu', message: 'Invalid value: "lots"', reason: 'FieldValueInvalid' },
        { field: 'spec.replicas', message: 'Invalid value: 99: must be at most 10' },
      ]),
    ).toEqual([
      { line: 15, field: 'spec.resources.limits.cpu', message: 'Invalid value: "lots"' },
      { line: 8, field: 'spec.replicas', message: 'Invalid value: 99: must be at most 10' },
    ]);
  });

  it('puts a cause without a field on line 1 and names its reason when it has no message', () => {
    expect(
      causesAtLines(manifest, [{ reason: 'FieldValueRequired' }, { field: '', message: 'bad' }]),
    ).toEqual([
      { line: 1, message: 'FieldValueRequired' },
      { line: 1, message: 'bad' },
    ]);
  });
});

describe('lineStartOffset', () => {
  it('finds where a line starts', () => {
    expect(lineStartOffset('ab\ncd\nef', 1)).toBe(0);
    expect(lineStartOffset('ab\ncd\nef', 2)).toBe(3);
    expect(lineStartOffset('ab\ncd\nef', 3)).toBe(6);
  });

  it('stays inside the text', () => {
    expect(lineStartOffset('ab\ncd', 9)).toBe(5);
    expect(lineStartOffset('ab', 0)).toBe(0);
    expect(lineStartOffset('', 2)).toBe(0);
  });
});
