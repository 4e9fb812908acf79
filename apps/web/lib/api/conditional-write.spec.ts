import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it, vi } from 'vitest';
import { StatusError } from './api-client';
import { sameIntent, writeOnVersion } from './conditional-write';

const conflict = () => new StatusError(409, 'Conflict', 'the object has been modified');

describe('writeOnVersion', () => {
  it('writes once on the version read when nothing moved', async () => {
    const write = vi.fn(async (version: string) => `wrote on ${version}`);
    const reread = vi.fn();
    await expect(writeOnVersion('10', write, reread)).resolves.toBe('wrote on 10');
    expect(reread).not.toHaveBeenCalled();
  });

  it('sends the write again on the new version when only status moved', async () => {
    const write = vi.fn(async (version: string) => {
      if (version !== '12') throw conflict();
      return 'ok';
    });
    const versions = ['11', '12'];
    const reread = vi.fn(async () => ({ version: versions.shift()!, unchanged: true }));
    await expect(writeOnVersion('10', write, reread)).resolves.toBe('ok');
    expect(write.mock.calls.map(([v]) => v)).toEqual(['10', '11', '12']);
  });

  it('keeps the 409 and writes nothing more when someone changed what the write was based on', async () => {
    const write = vi.fn(async () => {
      throw conflict();
    });
    const reread = vi.fn(async () => ({ version: '11', unchanged: false }));
    await expect(writeOnVersion('10', write, reread)).rejects.toMatchObject({ code: 409 });
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('gives up with the 409 after the attempts, and passes other failures through', async () => {
    const always = vi.fn(async () => {
      throw conflict();
    });
    await expect(
      writeOnVersion('1', always, async () => ({ version: '2', unchanged: true }), 2),
    ).rejects.toMatchObject({ code: 409 });
    expect(always).toHaveBeenCalledTimes(2);
    const forbidden = new StatusError(403, 'Forbidden', 'viewer');
    const reread = vi.fn();
    await expect(
      writeOnVersion(
        '1',
        async () => {
          throw forbidden;
        },
        reread,
      ),
    ).rejects.toBe(forbidden);
    expect(reread).not.toHaveBeenCalled();
  });
});

describe('sameIntent', () => {
  const read = {
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name: 'web', resourceVersion: '1', labels: { team: 'a' } },
    spec: { replicas: 2 },
    status: { readyReplicas: 1 },
  } as Nginx;

  it('ignores the status and the resourceVersion', () => {
    expect(
      sameIntent(read, {
        ...read,
        metadata: { ...read.metadata, resourceVersion: '9' },
        status: { readyReplicas: 2 },
      }),
    ).toBe(true);
  });

  it('sees a changed spec, label or a deletion', () => {
    expect(sameIntent(read, { ...read, spec: { replicas: 3 } })).toBe(false);
    expect(sameIntent(read, { ...read, metadata: { ...read.metadata, labels: { team: 'b' } } })).toBe(false);
    expect(
      sameIntent(read, {
        ...read,
        metadata: { ...read.metadata, deletionTimestamp: '2026-11-23T00:00:00Z' as unknown as Date },
      }),
    ).toBe(false);
  });
});
