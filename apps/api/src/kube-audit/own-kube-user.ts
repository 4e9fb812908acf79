import type { KubeRequester } from '@ngx/kube-runtime';

/** The user kube-apiserver takes the control plane's credentials for (a SelfSubjectReview). */
export async function ownKubeUser(client: KubeRequester): Promise<string> {
  const review = await client.request<{ status?: { userInfo?: { username?: unknown } } }>({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const username = review.status?.userInfo?.username;
  if (typeof username !== 'string' || username === '') throw new Error('the SelfSubjectReview named no user');
  return username;
}
