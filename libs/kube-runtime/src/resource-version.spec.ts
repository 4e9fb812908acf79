import { describe, expect, it } from 'vitest';
import { kindKey, resourceVersionAtLeast, WrittenVersions } from './resource-version.js';

describe('resourceVersions', () => {
  it('compares etcd revisions as integers, beyond the range of doubles, and refuses to compare anything else', () => {
    expect(resourceVersionAtLeast('10', '9')).toBe(true);
    expect(resourceVersionAtLeast('9', '10')).toBe(false);
    expect(resourceVersionAtLeast('9007199254740993', '9007199254740992')).toBe(true);
    expect(resourceVersionAtLeast('abc', '1')).toBeUndefined();
    expect(resourceVersionAtLeast('', '1')).toBeUndefined();
  });

  it('keys kinds as kubectl does', () => {
    expect(kindKey({ apiVersion: 'v1', kind: 'Pod' })).toBe('Pod');
    expect(kindKey({ apiVersion: 'mycompany.com/v1', kind: 'Nginx' })).toBe('Nginx.mycompany.com');
    expect(kindKey({ kind: 'Pod' })).toBeUndefined();
  });

  it('keeps the highest version written per kind and reads back only well-formed notes', () => {
    const written = new WrittenVersions();
    const pod = (rv: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: rv } });
    written.note(pod('20'));
    written.note(pod('9'));
    written.note(pod('not-a-number'));
    written.note({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { resourceVersion: '15' } });
    expect(written.encode()).toBe('{"Pod":"20","Nginx.mycompany.com":"15"}');
    const read = WrittenVersions.decode(written.encode());
    expect([read.get('Pod'), read.get('Nginx.mycompany.com'), read.size]).toEqual(['20', '15', 2]);
    for (const bad of [undefined, '', 'nonsense', '[1]', '{"Pod":12}', '{"Pod":"x"}'])
      expect(WrittenVersions.decode(bad).size).toBe(0);
    expect(WrittenVersions.decode('{"__proto__":"5"}').get('__proto__')).toBe('5');
  });
});
