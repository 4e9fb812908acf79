import type { V1SubjectAccessReview, V1SubjectAccessReviewStatus } from '@kubernetes/client-node';
import type { KubeRequester } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL } from '@ngx/nginx-api';

/** Whom kube-apiserver is asked about: a username and its groups, as the cluster's RBAC binds them. */
export interface AccessSubject {
  user: string;
  groups: readonly string[];
}

/**
 * A request on Nginxes (`nginxes.mycompany.com`, the only resource this control plane serves), as a
 * SubjectAccessReview's resourceAttributes name it. `namespace` undefined: every namespace at once (a
 * cluster-wide list or watch); `name` undefined: the collection (or a create, which names no object).
 */
export interface NginxAccess {
  verb: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** kube-apiserver's decision: allowed or not, and its reason (RBAC's, e.g. the binding that allowed it). */
export interface AccessAnswer {
  allowed: boolean;
  reason: string;
}

/** Asks kube-apiserver once; rejects when it cannot be asked (unreachable, or it refused the review itself). */
export type ReviewAccess = (subject: AccessSubject, access: NginxAccess) => Promise<AccessAnswer>;

/** How long one review may take before the request it decides is answered 503. */
const REVIEW_TIMEOUT_MS = 10_000;

/**
 * SubjectAccessReviews (authorization.k8s.io/v1) against kube-apiserver: "may this user, with these groups, do
 * this to Nginxes?" answered by whatever authorizes the cluster (RBAC, webhooks), exactly as for a request sent
 * to kube-apiserver itself. Sent with the app's own credentials (its ServiceAccount needs `create` on
 * `subjectaccessreviews`), outside the controller's QPS limit like the other requests made for callers, who have
 * request budgets of their own. Nothing is cached here (AccessDecisions is).
 */
export class SubjectAccessReviews {
  constructor(private readonly client: KubeRequester) {}

  readonly review: ReviewAccess = async (subject, access) => {
    const body: V1SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: subject.user,
        groups: [...subject.groups],
        resourceAttributes: {
          group: NGINX_GROUP,
          resource: NGINX_PLURAL,
          verb: access.verb,
          ...(access.namespace !== undefined ? { namespace: access.namespace } : {}),
          ...(access.name !== undefined ? { name: access.name } : {}),
          ...(access.subresource !== undefined ? { subresource: access.subresource } : {}),
        },
      },
    };
    const review = await this.client.request<{ status?: V1SubjectAccessReviewStatus }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body,
      priority: 'exempt',
      timeoutMs: REVIEW_TIMEOUT_MS,
    });
    const status = review.status;
    const reason = [status?.reason, status?.evaluationError].filter(Boolean).join('; ');
    // `denied` only says no authorizer allowed it for sure; `allowed` false is a refusal either way.
    return { allowed: status?.allowed === true && status.denied !== true, reason };
  };
}
