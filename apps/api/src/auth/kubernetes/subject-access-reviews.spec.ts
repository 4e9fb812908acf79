import type { KubeRequest } from '@ngx/kube-runtime';
import { describe, expect, it } from 'vitest';
import { SubjectAccessReviews } from './subject-access-reviews.js';

function fakeClient(status: unknown) {
  const sent: KubeRequest[] = [];
  return {
    sent,
    client: {
      request: async <T>(req: KubeRequest) => {
        sent.push(req);
        return { ...(req.body as object), status } as T;
      },
    },
  };
}

describe('SubjectAccessReviews', () => {
  it('posts a SubjectAccessReview for the user, groups and Nginx attributes', async () => {
    const { sent, client } = fakeClient({ allowed: true, reason: 'RBAC: allowed by RoleBinding' });
    const answer = await new SubjectAccessReviews(client).review(
      { user: 'alice', groups: ['team-a'] },
      { verb: 'patch', namespace: 'team-a', name: 'web', subresource: 'scale' },
    );
    expect(answer).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding' });
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'alice',
          groups: ['team-a'],
          resourceAttributes: {
            group: 'mycompany.com',
            resource: 'nginxes',
            verb: 'patch',
            namespace: 'team-a',
            name: 'web',
            subresource: 'scale',
          },
        },
      },
    });
  });

  it('leaves out what the request does not name (a cluster-wide list)', async () => {
    const { sent, client } = fakeClient({ allowed: false });
    expect(
      await new SubjectAccessReviews(client).review({ user: 'u', groups: [] }, { verb: 'list' }),
    ).toEqual({
      allowed: false,
      reason: '',
    });
    expect((sent[0]!.body as { spec: { resourceAttributes: object } }).spec.resourceAttributes).toEqual({
      group: 'mycompany.com',
      resource: 'nginxes',
      verb: 'list',
    });
  });

  it('refuses when denied, and passes on the evaluation error with the reason', async () => {
    const { client } = fakeClient({ allowed: true, denied: true, reason: 'webhook says no' });
    expect(
      (await new SubjectAccessReviews(client).review({ user: 'u', groups: [] }, { verb: 'get' })).allowed,
    ).toBe(false);
    const errored = fakeClient({ allowed: false, evaluationError: 'webhook timed out' });
    expect(
      await new SubjectAccessReviews(errored.client).review({ user: 'u', groups: [] }, { verb: 'get' }),
    ).toEqual({ allowed: false, reason: 'webhook timed out' });
  });
});
