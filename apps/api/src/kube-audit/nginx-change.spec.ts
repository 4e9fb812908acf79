import { describe, expect, it } from 'vitest';
import type { AuditEvent } from './audit-event.js';
import { nginxChanges, type EventContext } from './nginx-change.js';

const UID = '6d1f0c52-0000-4000-8000-000000000001';

const context = (overrides: Partial<EventContext> = {}): EventContext => ({
  source: 'audit-webhook',
  self: 'control-plane',
  watchNamespaces: undefined,
  specBefore: (uid, version) =>
    uid === UID && version === '12' ? { replicas: 1, image: 'nginx:1' } : undefined,
  deletedSpec: (uid) => (uid === UID ? { replicas: 4, image: 'nginx:2' } : undefined),
  ...overrides,
});

const nginx = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: 'Nginx',
  apiVersion: 'mycompany.com/v1',
  metadata: { name: 'web', namespace: 'shop', uid: UID, resourceVersion: '12', generation: 3, ...extra },
  spec,
});

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    level: 'RequestResponse',
    auditID: 'a-1',
    stage: 'ResponseComplete',
    requestURI: '/apis/mycompany.com/v1/namespaces/shop/nginxes/web?fieldManager=kubectl-patch',
    verb: 'patch',
    user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
    userAgent: 'kubectl/v1.36.3 (linux/amd64)',
    objectRef: {
      resource: 'nginxes',
      namespace: 'shop',
      name: 'web',
      apiGroup: 'mycompany.com',
      apiVersion: 'v1',
    },
    responseStatus: { code: 200 },
    responseObject: nginx({ replicas: 2, image: 'nginx:1' }),
    requestReceivedTimestamp: '2026-11-26T10:00:00.000000Z',
    stageTimestamp: '2026-11-26T10:00:00.100000Z',
    ...overrides,
  };
}

describe('nginxChanges', () => {
  it('makes a write straight to kube-apiserver a change of its user, with the spec the informer saw before', () => {
    const [row, ...rest] = nginxChanges(event(), context());
    expect(rest).toEqual([]);
    expect(row).toMatchObject({
      at: new Date('2026-11-26T10:00:00.100Z'),
      actor: 'alice',
      role: '',
      verb: 'patch',
      namespace: 'shop',
      name: 'web',
      door: 'kube-apiserver',
      source: 'audit-webhook',
      auditId: 'a-1',
      kubeUser: 'alice',
      kubeGroups: '["dev","system:authenticated"]',
      impersonator: null,
      fieldManager: 'kubectl-patch',
      uid: UID,
      resourceVersion: '12',
      generation: 3,
      specBefore: '{"replicas":1,"image":"nginx:1"}',
      specAfter: '{"replicas":2,"image":"nginx:1"}',
      code: 200,
      reason: null,
      joinKey: 'request:a-1',
    });
    // It completes the informer's record of the same write, if one was made before it came.
    expect(row!.completesKeys).toEqual([`write:${UID}@12`]);
    expect(row!.dedupeKey).toMatch(/^kube:/);
  });

  it('names the impersonated user as actor and keeps who impersonated', () => {
    const [row] = nginxChanges(
      event({ impersonatedUser: { username: 'jane', groups: ['platform'] } }),
      context(),
    );
    expect(row).toMatchObject({
      actor: 'jane',
      impersonator: 'alice',
      kubeUser: 'alice',
      kubeGroups: '["platform"]',
    });
  });

  it("completes the control plane's own record of a write it relayed, and skips the controller's own writes", () => {
    const relayed = nginxChanges(
      event({ user: { username: 'control-plane' }, auditID: 'ngx-rest-1' }),
      context(),
    );
    expect(relayed[0]).toMatchObject({
      door: 'controlplane',
      completesKeys: ['request:ngx-rest-1', `write:${UID}@12`],
    });
    expect(
      nginxChanges(event({ user: { username: 'control-plane' }, auditID: 'ngx-ctrl-1' }), context()),
    ).toEqual([]);
    // Another user with the control plane's prefix is just another user; so is anyone while the identity is unknown.
    expect(nginxChanges(event({ auditID: 'ngx-ctrl-2' }), context())[0]).toMatchObject({
      door: 'kube-apiserver',
    });
    expect(
      nginxChanges(
        event({ user: { username: 'control-plane' }, auditID: 'ngx-rest-3' }),
        context({ self: undefined }),
      )[0],
    ).toMatchObject({ door: 'kube-apiserver', actor: 'control-plane' });
  });

  it('tells a server-side apply from a patch by the Apply entry it leaves in managedFields', () => {
    const applied = event({
      requestURI:
        '/apis/mycompany.com/v1/namespaces/shop/nginxes/web?fieldManager=argocd-controller&force=true',
      responseObject: nginx(
        { replicas: 2 },
        {
          managedFields: [{ manager: 'argocd-controller', operation: 'Apply', time: '2026-11-26T10:00:00Z' }],
        },
      ),
    });
    expect(nginxChanges(applied, context())[0]).toMatchObject({
      verb: 'apply',
      fieldManager: 'argocd-controller',
    });
    const older = event({
      responseObject: nginx(
        { replicas: 2 },
        { managedFields: [{ manager: 'kubectl-patch', operation: 'Apply', time: '2026-11-26T09:00:00Z' }] },
      ),
    });
    expect(nginxChanges(older, context())[0]).toMatchObject({ verb: 'patch' });
  });

  it('gives a /scale write the spec before and after with the new replicas', () => {
    const [row] = nginxChanges(
      event({
        verb: 'update',
        objectRef: {
          resource: 'nginxes',
          subresource: 'scale',
          namespace: 'shop',
          name: 'web',
          apiGroup: 'mycompany.com',
        },
        responseObject: {
          kind: 'Scale',
          metadata: { name: 'web', uid: UID, resourceVersion: '12' },
          spec: { replicas: 5 },
        },
        userAgent:
          'kube-controller-manager/v1.36.3 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:horizontal-pod-autoscaler',
        requestURI: '/apis/mycompany.com/v1/namespaces/shop/nginxes/web/scale',
      }),
      context(),
    );
    expect(row).toMatchObject({
      verb: 'update',
      subresource: 'scale',
      specBefore: '{"replicas":1,"image":"nginx:1"}',
      specAfter: '{"replicas":5,"image":"nginx:1"}',
      fieldManager: 'kube-controller-manager',
      generation: null,
    });
  });

  it('gives a delete answered with a Status the spec the informer saw deleted', () => {
    const [row] = nginxChanges(
      event({
        verb: 'delete',
        responseObject: { kind: 'Status', status: 'Success', details: { name: 'web', uid: UID } },
      }),
      context(),
    );
    expect(row!.completesKeys).toEqual([`deleted:${UID}`]);
    expect(row).toMatchObject({
      verb: 'delete',
      uid: UID,
      specBefore: '{"replicas":4,"image":"nginx:2"}',
      specAfter: null,
      fieldManager: null,
    });
  });

  it('records a refused write with its code, reason and message and no spec after', () => {
    const [row] = nginxChanges(
      event({
        responseStatus: { code: 403, reason: 'Forbidden', message: 'alice cannot patch' },
        responseObject: { kind: 'Status', code: 403 },
      }),
      context(),
    );
    expect(row).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'alice cannot patch',
      specAfter: null,
      resourceVersion: null,
    });
  });

  it('makes one record per Nginx a collection delete removed', () => {
    const rows = nginxChanges(
      event({
        verb: 'deletecollection',
        objectRef: { resource: 'nginxes', namespace: 'shop', apiGroup: 'mycompany.com' },
        requestURI: '/apis/mycompany.com/v1/namespaces/shop/nginxes',
        responseObject: {
          kind: 'NginxList',
          items: [
            nginx({ replicas: 1 }),
            { ...nginx({ replicas: 2 }), metadata: { name: 'api', uid: 'u2' } },
          ],
        },
      }),
      context(),
    );
    expect(rows.map((row) => [row.name, row.uid, row.specBefore, row.joinKey])).toEqual([
      ['web', UID, '{"replicas":1}', 'request:a-1/web'],
      ['api', 'u2', '{"replicas":2}', 'request:a-1/api'],
    ]);
    expect(new Set(rows.map((row) => row.dedupeKey)).size).toBe(2);
    expect(rows.map((row) => row.completesKeys)).toEqual([[`deleted:${UID}`], ['deleted:u2']]);
  });

  it('ignores reads, other resources, dry runs, early stages and other namespaces', () => {
    const ignored: Partial<AuditEvent>[] = [
      { verb: 'get' },
      { verb: 'watch' },
      { objectRef: { resource: 'pods', namespace: 'shop', name: 'web-1', apiGroup: '' } },
      { objectRef: { resource: 'nginxes', namespace: 'shop', name: 'web', apiGroup: 'other.com' } },
      { requestURI: '/apis/mycompany.com/v1/namespaces/shop/nginxes/web?dryRun=All' },
      { stage: 'ResponseStarted' },
    ];
    for (const overrides of ignored) expect(nginxChanges(event(overrides), context())).toEqual([]);
    expect(nginxChanges(event(), context({ watchNamespaces: ['other'] }))).toEqual([]);
    expect(nginxChanges(event({ stage: 'Panic', responseStatus: { code: 500 } }), context())).toHaveLength(1);
  });

  it('keys a record by the event, so a batch sent again is stored once but another request is not taken for it', () => {
    const key = (overrides: Partial<AuditEvent>) => nginxChanges(event(overrides), context())[0]!.dedupeKey;
    expect(key({})).toBe(key({}));
    expect(key({ user: { username: 'bob' } })).not.toBe(key({}));
    expect(key({ requestReceivedTimestamp: '2026-11-26T10:00:01Z' })).not.toBe(key({}));
  });
});
