import type { Caller } from '../roles.js';
import type { AccessDecisions, AccessRefusal } from './access-decisions.js';
import { subjectOf } from './caller-subject.js';
import type { AccessAnswer, NginxAccess } from './subject-access-reviews.js';

/**
 * AUTHORIZATION=kubernetes: what a caller may do is what the cluster's RBAC allows its user and groups, asked of
 * kube-apiserver (AccessDecisions: SubjectAccessReviews, answers kept briefly). Never allows a request it could
 * not ask about.
 */
export class KubernetesAuthorizer {
  constructor(private readonly decisions: AccessDecisions) {}

  /** Why `caller` may not make the request (403 from the cluster, 503 when it cannot be asked); undefined: it may. */
  refusal(caller: Caller, access: NginxAccess): Promise<AccessRefusal | undefined> {
    return this.decisions.refusal(subjectOf(caller), access);
  }

  /** The cluster's answer (kept or asked now); rejects when kube-apiserver cannot be asked. */
  answer(caller: Caller, access: NginxAccess): Promise<AccessAnswer> {
    return this.decisions.answer(subjectOf(caller), access);
  }

  /** True only when an answer still kept says the cluster allows it; false when none is kept or it said no. */
  knownAllowed(caller: Caller, access: NginxAccess): boolean {
    return this.decisions.known(subjectOf(caller), access)?.allowed === true;
  }
}
