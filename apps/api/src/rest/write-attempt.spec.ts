import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { kubeStatus } from '../http/kube-status.js';
import { WriteAttempt } from './write-attempt.js';

const request = (method: string, path: string, contentType = 'application/json', query = {}) =>
  ({ method, path, headers: { 'content-type': contentType }, query }) as unknown as Request;
const caller = { name: 'eve-editor', role: 'editor' as const };
const BASE = '/apis/mycompany.com/v1/namespaces';

describe('WriteAttempt', () => {
  it('reads the write from the method, the path and the media type', () => {
    expect(WriteAttempt.of(request('POST', `${BASE}/team/nginxes`))).toMatchObject({
      verb: 'create',
      namespace: 'team',
      name: '',
      subresource: null,
      patchType: null,
    });
    expect(
      WriteAttempt.of(request('PATCH', `${BASE}/team/nginxes/web/scale`, 'application/merge-patch+json')),
    ).toMatchObject({
      verb: 'patch',
      name: 'web',
      subresource: 'scale',
      patchType: 'application/merge-patch+json',
    });
    expect(
      WriteAttempt.of(request('PATCH', `${BASE}/team/nginxes/web`, 'application/apply-patch+yaml')),
    ).toMatchObject({
      verb: 'apply',
    });
    expect(WriteAttempt.of(request('DELETE', `${BASE}/team/nginxes/web`))).toMatchObject({ verb: 'delete' });
    expect(WriteAttempt.of(request('DELETE', `${BASE}/team/nginxes`))).toMatchObject({
      verb: 'deletecollection',
      name: '',
    });
    expect(WriteAttempt.of(request('GET', `${BASE}/team/nginxes/web`))).toBeUndefined();
    expect(WriteAttempt.of(request('POST', '/apis/other.io/v1/namespaces/team/things'))).toBeUndefined();
  });

  it('reads a rollback through the control plane as verb rollback, without a patch type', () => {
    const path = '/controlplane/v1/namespaces/team/nginxes/web/revisions/3/rollback';
    expect(WriteAttempt.of(request('POST', path))).toMatchObject({
      verb: 'rollback',
      namespace: 'team',
      name: 'web',
      subresource: null,
      patchType: null,
    });
    expect(WriteAttempt.of(request('POST', path.replace('/3/', '/abc/')))).toMatchObject({
      verb: 'rollback',
    });
    expect(WriteAttempt.of(request('GET', path))).toBeUndefined();
    expect(
      WriteAttempt.of(request('GET', '/controlplane/v1/namespaces/team/nginxes/web/revisions')),
    ).toBeUndefined();
    expect(
      WriteAttempt.of(request('POST', '/controlplane/v1/namespaces/team/nginxes/web/revisions')),
    ).toBeUndefined();
    const rolledBack = WriteAttempt.of(request('POST', path))!;
    rolledBack.specBefore = { replicas: 2, image: 'nginx:1.28' };
    const row = rolledBack.records(
      caller,
      {
        code: 200,
        answer: {
          kind: 'Nginx',
          metadata: { name: 'web', uid: 'u-1', resourceVersion: '12' },
          spec: { replicas: 2, image: 'nginx:1.27' },
        },
      },
      undefined,
    )[0]!;
    expect(row).toMatchObject({ verb: 'rollback', code: 200, uid: 'u-1', resourceVersion: '12' });
    expect(JSON.parse(row.specBefore!)).toEqual({ replicas: 2, image: 'nginx:1.28' });
    expect(JSON.parse(row.specAfter!)).toEqual({ replicas: 2, image: 'nginx:1.27' });
  });

  it('keeps what was asked even when it is not a valid name, and no unknown subresource', () => {
    const attempt = WriteAttempt.of(request('PUT', `${BASE}/Team%00/nginxes/We%2Fb/exec`))!;
    expect(attempt).toMatchObject({ namespace: 'Team\u0000', name: 'We/b', subresource: null });
    expect(WriteAttempt.of(request('PUT', `${BASE}/a/nginxes/%E0%A4%A`))!.name).toBe('%E0%A4%A');
  });

  it('knows a dry run, by own query property only', () => {
    expect(
      WriteAttempt.of(request('POST', `${BASE}/a/nginxes`, 'application/json', { dryRun: 'All' }))!.dryRun,
    ).toBe(true);
    const inherited = Object.create({ dryRun: 'All' }) as object;
    expect(WriteAttempt.of(request('POST', `${BASE}/a/nginxes`, 'application/json', inherited))!.dryRun).toBe(
      false,
    );
  });

  it('records a refusal with its Status, and a success with the spec after it', () => {
    const refused = WriteAttempt.of(request('POST', `${BASE}/team/nginxes`))!;
    expect(
      refused.records(caller, { code: 403, answer: kubeStatus(403, 'limited to team-b') }, 'curl/8')[0],
    ).toMatchObject({
      actor: 'eve-editor',
      verb: 'create',
      namespace: 'team',
      code: 403,
      reason: 'Forbidden',
      message: 'limited to team-b',
      specAfter: null,
      userAgent: 'curl/8',
      actorEmail: null,
      actorGroups: null,
      authenticatedBy: 'static-token',
    });
    const scaled = WriteAttempt.of(
      request('PATCH', `${BASE}/team/nginxes/web/scale`, 'application/merge-patch+json'),
    )!;
    scaled.specBefore = { replicas: 1, image: 'nginx:1.27' };
    const row = scaled.records(
      caller,
      {
        code: 200,
        answer: { kind: 'Scale', metadata: { name: 'web', resourceVersion: '9' }, spec: { replicas: 3 } },
      },
      undefined,
    )[0]!;
    expect(JSON.parse(row.specAfter!)).toEqual({ replicas: 3, image: 'nginx:1.27' });
    expect(row).toMatchObject({ code: 200, reason: null, resourceVersion: '9' });
  });

  it('records a collection delete once for each Nginx deleted, and a refused one once', () => {
    const attempt = WriteAttempt.of(request('DELETE', `${BASE}/team/nginxes`))!;
    const nginx = (name: string, replicas: number) => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name, namespace: 'team', uid: `u-${name}`, resourceVersion: '40' },
      spec: { replicas, image: 'nginx:1.27' },
    });
    const rows = attempt.records(
      caller,
      { code: 200, answer: { kind: 'NginxList', items: [nginx('a', 1), nginx('b', 3)] } },
      'kubectl/v1.36',
    );
    expect(rows.map((row) => [row.verb, row.name, row.uid, row.code, row.specAfter])).toEqual([
      ['deletecollection', 'a', 'u-a', 200, null],
      ['deletecollection', 'b', 'u-b', 200, null],
    ]);
    expect(JSON.parse(rows[1]!.specBefore!)).toEqual({ replicas: 3, image: 'nginx:1.27' });
    expect(
      attempt.records(caller, { code: 200, answer: { kind: 'NginxList', items: [] } }, undefined),
    ).toEqual([]);
    const refused = attempt.records(
      caller,
      { code: 400, answer: kubeStatus(400, 'bad selector') },
      undefined,
    );
    expect(refused).toMatchObject([{ verb: 'deletecollection', name: '', code: 400, reason: 'BadRequest' }]);
  });

  it('names the person behind a write: username, email, groups and how they signed in, on every record', () => {
    const alice = {
      name: 'oidc:alice',
      role: 'editor' as const,
      identity: {
        username: 'oidc:alice',
        groups: ['oidc:platform', 'system:authenticated'],
        email: 'alice@example.com',
        authenticatedBy: 'oidc' as const,
      },
    };
    const attempt = WriteAttempt.of(request('DELETE', `${BASE}/team/nginxes`))!;
    const items = ['a', 'b'].map((name) => ({ kind: 'Nginx', metadata: { name } }));
    const rows = attempt.records(alice, { code: 200, answer: { kind: 'NginxList', items } }, undefined);
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(row).toMatchObject({
        actor: 'oidc:alice',
        role: 'editor',
        actorEmail: 'alice@example.com',
        actorGroups: '["oidc:platform","system:authenticated"]',
        authenticatedBy: 'oidc',
      });
  });
});
