import type { KubeRequester } from '@ngx/kube-runtime';
import type { Identity } from './identity.js';

/** The part of a TokenReview's status this reads. */
interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; groups?: string[] };
  audiences?: string[];
  error?: string;
}

/** Why a ServiceAccount token was not taken, or the identity it names. */
export type ReviewOutcome = { identity: Identity } | { refused: string };

/**
 * Kubernetes ServiceAccount tokens (and any other token kube-apiserver authenticates) checked by a TokenReview
 * that asks for `audience`: kube-apiserver answers authenticated only for a token minted for it (`kubectl create
 * token SA --audience <audience>`), so a token meant for kube-apiserver itself, or for another service, is not
 * one for us. The app's ServiceAccount needs `create` on `tokenreviews`. Rejects (does not answer `refused`) when
 * kube-apiserver could not be asked.
 */
export class ServiceAccountTokens {
  constructor(
    private readonly client: KubeRequester,
    readonly audience: string,
  ) {}

  async review(token: string): Promise<ReviewOutcome> {
    const review = await this.client.request<{ status?: TokenReviewStatus }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/tokenreviews',
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, audiences: [this.audience] },
      },
    });
    const status = review.status ?? {};
    if (!status.authenticated)
      return { refused: `the cluster does not authenticate the token for the audience ${this.audience}` };
    if (!(status.audiences ?? []).includes(this.audience))
      return { refused: `the token is not meant for the audience ${this.audience}` };
    const username = status.user?.username;
    if (!username) return { refused: 'the cluster authenticated the token but named no user' };
    return {
      identity: { username, groups: status.user?.groups ?? [], authenticatedBy: 'serviceaccount' },
    };
  }
}
