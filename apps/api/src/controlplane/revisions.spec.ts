import type { V1ControllerRevision } from '@kubernetes/client-node';
import {
  controllerRevisionName,
  revisionsOf,
  podTemplateOf,
  revisionOf,
  type Nginx,
  type NginxSpec,
} from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import type { SpecChange } from '../audit/audit-reader.js';
import { StatusException } from '../http/kube-status.js';
import {
  introducedRevision,
  introducingChanges,
  revisionItems,
  revisionParam,
  rollbackOptions,
  specRevision,
} from './revisions.js';

const UID = 'uid-web';
const v1: NginxSpec = { replicas: 3, image: 'nginx:1.27' };
const v2: NginxSpec = { replicas: 3, image: 'nginx:1.28', config: 'server { listen 80; }' };
const v3: NginxSpec = {
  replicas: 5,
  image: 'nginx:1.28',
  config: 'server { listen 80; }',
  resources: { requests: { cpu: '50m', memory: '64Mi' } },
};
const hash = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));

const nginx = (spec: NginxSpec, resourceVersion = '40'): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team', uid: UID, resourceVersion },
  spec,
});

function controllerRevision(
  spec: NginxSpec,
  revision: number,
  { owner = UID, created = `2026-11-22T10:0${revision}:00Z` } = {},
): V1ControllerRevision {
  const template = podTemplateOf(spec);
  const hash = revisionOf(template);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName('web', hash),
      namespace: 'team',
      labels: { 'mycompany.com/nginx': 'web', 'mycompany.com/revision': hash },
      ownerReferences: [
        { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: owner, controller: true },
      ],
      creationTimestamp: created as unknown as Date,
    },
    revision,
    data: { template },
  };
}

const change = (
  verb: string,
  specBefore: NginxSpec | null,
  specAfter: unknown,
  at: string,
  actor = 'eve-editor',
): SpecChange => ({ at, actor, role: 'editor', door: 'controlplane', verb, specBefore, specAfter });

async function* batchesOf<T>(...batches: T[][]): AsyncGenerator<T[]> {
  for (const batch of batches) yield batch;
}

describe('revisionParam', () => {
  it('takes positive integers', () => {
    expect(revisionParam('1')).toBe(1);
    expect(revisionParam('42')).toBe(42);
  });

  it.each(['abc', '0', '-1', '01', '1.5', '1e3', '', ' 1', '99999999999999999'])(
    'refuses %j with 400 naming the revision',
    (value) => {
      const error = (() => {
        try {
          revisionParam(value);
        } catch (thrown) {
          return thrown;
        }
      })() as StatusException;
      expect(error).toBeInstanceOf(StatusException);
      expect(error.code).toBe(400);
      expect(error.body).toMatchObject({
        reason: 'BadRequest',
        details: { causes: [{ field: 'revision' }] },
      });
    },
  );
});

describe('which write introduced a revision', () => {
  it('is a write that moved the template to it, or the create', () => {
    expect(introducedRevision(change('create', null, v1, 't'))).toBe(hash(v1));
    expect(introducedRevision(change('patch', v1, v2, 't'))).toBe(hash(v2));
    expect(introducedRevision(change('rollback', v2, v1, 't'))).toBe(hash(v1));
    // Same template: a scale, a replicas patch, a status write.
    expect(introducedRevision(change('patch', v1, { ...v1, replicas: 9 }, 't'))).toBeUndefined();
    // A spec cut to fit the audit is no longer JSON: it names no revision.
    expect(
      introducedRevision(change('patch', v1, '{"replicas":3,"config":"…[cut from 70000 bytes]', 't')),
    ).toBe(undefined);
  });

  it('reads defaults as the controller does (no image is nginx:latest)', () => {
    expect(specRevision({ replicas: 1 })).toBe(
      specRevision({ replicas: 2, image: 'nginx:latest', port: 80 }),
    );
    expect(specRevision(null)).toBeUndefined();
    expect(specRevision([1])).toBeUndefined();
  });

  it('finds the latest such write for each revision, reading no further than needed', async () => {
    let batchesRead = 0;
    async function* counted() {
      for (const batch of [
        [
          change('patch', v3, { ...v3, replicas: 6 }, '2026-11-22T10:06:00Z'),
          change('rollback', v3, v2, '2026-11-22T10:05:00Z', 'ann-admin'),
        ],
        [change('patch', v2, v3, '2026-11-22T10:04:00Z'), change('patch', v1, v2, '2026-11-22T10:03:00Z')],
        [change('create', null, v1, '2026-11-22T10:01:00Z')],
        [change('create', null, v1, '2026-11-22T09:00:00Z', 'never-read')],
      ]) {
        batchesRead++;
        yield batch;
      }
    }
    const found = await introducingChanges([hash(v1), hash(v2), hash(v3)], counted());
    expect(found.get(hash(v2))).toEqual({
      actor: 'ann-admin',
      role: 'editor',
      door: 'controlplane',
      verb: 'rollback',
      at: '2026-11-22T10:05:00Z',
    });
    expect(found.get(hash(v3))).toMatchObject({ verb: 'patch', at: '2026-11-22T10:04:00Z' });
    expect(found.get(hash(v1))).toMatchObject({ verb: 'create', actor: 'eve-editor' });
    expect(batchesRead).toBe(3);
  });

  it('leaves out revisions no write introduced, and stops at the row limit', async () => {
    const found = await introducingChanges(
      [hash(v1), hash(v2)],
      batchesOf([change('patch', v1, v2, 'b')], [change('create', null, v1, 'a')]),
      { limit: 1 },
    );
    expect([...found.keys()]).toEqual([hash(v2)]);
    expect((await introducingChanges([], batchesOf([change('create', null, v1, 'a')]))).size).toBe(0);
  });
});

describe('revisionItems', () => {
  it('marks the spec’s revision current and attaches each one’s write', () => {
    const revisions = revisionsOf(nginx(v2), [controllerRevision(v1, 1), controllerRevision(v2, 2)]);
    const changes = new Map([
      [
        hash(v1),
        { actor: 'eve-editor', role: 'editor', door: 'controlplane' as const, verb: 'create', at: 'a' },
      ],
    ]);
    expect(revisionItems(nginx({ ...v2, replicas: 7 }), revisions, changes)).toEqual([
      {
        revision: 2,
        hash: hash(v2),
        template: podTemplateOf(v2),
        created: '2026-11-22T10:02:00Z',
        current: true,
        change: null,
      },
      {
        revision: 1,
        hash: hash(v1),
        template: podTemplateOf(v1),
        created: '2026-11-22T10:01:00Z',
        current: false,
        change: {
          actor: 'eve-editor',
          role: 'editor',
          door: 'controlplane' as const,
          verb: 'create',
          at: 'a',
        },
      },
    ]);
  });
});

describe('rollbackOptions', () => {
  it('takes no body, an empty object or a resourceVersion', () => {
    expect(rollbackOptions(undefined)).toEqual({});
    expect(rollbackOptions({})).toEqual({});
    expect(rollbackOptions({ resourceVersion: '123' })).toEqual({ resourceVersion: '123' });
  });

  it.each([
    [[], undefined],
    [null, undefined],
    [{ resourceVersion: 123 }, 'resourceVersion'],
    [{ resourceVersion: 'abc' }, 'resourceVersion'],
    [{ resourceVersion: '1', revision: 2 }, 'revision'],
    [{ ['__proto__']: 1 }, undefined],
  ])('refuses %j with 400', (body, field) => {
    try {
      rollbackOptions(JSON.parse(JSON.stringify(body)));
      expect.unreachable();
    } catch (error) {
      expect((error as StatusException).code).toBe(400);
      if (field) expect((error as StatusException).body.details?.causes?.[0]?.field).toBe(field);
    }
  });
});
