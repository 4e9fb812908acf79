import { describe, expect, it } from 'vitest';
import { checkYaml } from './create-yaml';

const manifest = (spec: string, metadata = 'name: web') =>
  `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  ${metadata}\nspec:\n  ${spec}\n`;

describe('checkYaml', () => {
  it('accepts a valid manifest, in the fallback namespace', () => {
    const check = checkYaml(manifest('replicas: 2'), 'team-a');
    expect(check.problems).toEqual([]);
    expect(check.namespace).toBe('team-a');
    expect(check.object).toMatchObject({ metadata: { name: 'web' }, spec: { replicas: 2 } });
  });

  it("uses the manifest's own namespace", () => {
    expect(checkYaml(manifest('replicas: 2', 'name: web\n  namespace: team-b'), 'team-a').namespace).toBe(
      'team-b',
    );
  });

  it('names schema problems by field, with the server messages', () => {
    const check = checkYaml(manifest('replicas: -1'), 'default');
    expect(check.object).toBeUndefined();
    expect(check.problems).toEqual([
      'spec.replicas: Invalid value: -1: spec.replicas should be greater than or equal to 0',
    ]);
  });

  it('requires a name and a valid namespace', () => {
    const check = checkYaml('apiVersion: mycompany.com/v1\nkind: Nginx\nspec:\n  replicas: 1\n', 'Bad_NS');
    expect(check.problems).toHaveLength(2);
    expect(check.problems[0]).toBe('metadata.name: Required value');
    expect(check.problems[1]).toMatch(/^metadata.namespace: a lowercase RFC 1123 label/);
  });

  it('reports a YAML syntax error as one problem', () => {
    const check = checkYaml('spec: [', 'default');
    expect(check.object).toBeUndefined();
    expect(check.problems).toHaveLength(1);
    expect(check.problems[0]).toMatch(/^YAML: /);
  });
});
