import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  comparableText,
  editableManifest,
  hasChanges,
  lineDiff,
  manifestText,
  withResourceVersion,
} from './manifest-diff';

const nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: {
    name: 'web',
    namespace: 'default',
    resourceVersion: '42',
    generation: 3,
    uid: 'u-1',
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { replicas: 2, image: 'nginx:1.27' },
  status: { readyReplicas: 2 },
} as unknown as Nginx;

describe('editableManifest / manifestText', () => {
  it('drops status and managedFields, keeps resourceVersion', () => {
    const manifest = editableManifest(nginx);
    expect(manifest).not.toHaveProperty('status');
    expect(manifest.metadata).not.toHaveProperty('managedFields');
    expect(manifest.metadata.resourceVersion).toBe('42');
    expect(nginx.metadata.managedFields).toHaveLength(1);
    expect(parse(manifestText(nginx))).toEqual(manifest);
  });
});

describe('comparableText', () => {
  it('leaves out what every write changes', () => {
    const text = comparableText(nginx);
    expect(text).not.toMatch(/resourceVersion|generation|managedFields|readyReplicas/);
    expect(text).toContain('replicas: 2');
    const later = { ...nginx, metadata: { ...nginx.metadata, resourceVersion: '50', generation: 4 } };
    expect(comparableText(later as Nginx)).toBe(text);
  });
});

describe('lineDiff', () => {
  it('marks added, removed and kept lines', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nB\nc\n')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('has no change for equal texts', () => {
    expect(hasChanges(lineDiff('a\n', 'a\n'))).toBe(false);
    expect(hasChanges(lineDiff('a\n', 'b\n'))).toBe(true);
  });
});

describe('withResourceVersion', () => {
  it('sets the version read, keeping comments', () => {
    const text = '# mine\nmetadata:\n  name: web\n  resourceVersion: "7"\nspec:\n  replicas: 1 # two?\n';
    const out = withResourceVersion(text, '42');
    expect(parse(out).metadata.resourceVersion).toBe('42');
    expect(out).toContain('# mine');
    expect(out).toContain('# two?');
  });

  it('keeps a numeric-looking version a string', () => {
    const out = withResourceVersion('metadata:\n  resourceVersion: 7\n', '42');
    expect(parse(out).metadata.resourceVersion).toBe('42');
  });

  it('adds it when the text lost it', () => {
    expect(parse(withResourceVersion('metadata:\n  name: web\n', '42')).metadata).toEqual({
      name: 'web',
      resourceVersion: '42',
    });
  });

  it('leaves a text alone when it already has it, or is not a mapping', () => {
    const text = 'metadata:\n  resourceVersion: "42"\n';
    expect(withResourceVersion(text, '42')).toBe(text);
    expect(withResourceVersion('a: [', '42')).toBe('a: [');
    expect(withResourceVersion('- a\n', '42')).toBe('- a\n');
    expect(withResourceVersion('metadata: x\n', '42')).toBe('metadata: x\n');
  });
});
