import { NGINX_GROUP, NGINX_PLURAL } from '@ngx/nginx-api';
import { ExpiringCache } from '../../cache/expiring-cache.js';
import type { AccessAnswer, AccessSubject, NginxAccess, ReviewAccess } from './subject-access-reviews.js';

/** Most answers kept; the oldest go first. */
const DEFAULT_MAX_ENTRIES = 10_000;

/** Why a request is not allowed: 403 (the cluster said no) or 503 (it could not be asked), with a message. */
export interface AccessRefusal {
  code: 403 | 503;
  message: string;
}

/**
 * kube-apiserver's answers to SubjectAccessReviews, each reused for `ttlMs` as kube-apiserver's webhook
 * authorizer reuses its webhook's (whose defaults, --authorization-webhook-cache-authorized-ttl 5 min and
 * -unauthorized-ttl 30 s, are longer than ours: a removed RoleBinding takes effect here within `ttlMs`). Allowed
 * and denied answers are kept alike; a failure to ask is never kept, so the next request asks again. At most
 * `maxEntries` answers are kept (the oldest dropped first), and one question asked by many requests at once is
 * sent once. Guarantee: nothing is allowed without an answer `allowed` from kube-apiserver at most `ttlMs` old.
 */
export class AccessDecisions {
  private readonly answers: ExpiringCache<AccessAnswer>;

  constructor(
    private readonly review: ReviewAccess,
    private readonly options: { ttlMs: number; maxEntries?: number; now?: () => number },
  ) {
    this.answers = new ExpiringCache({
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      now: options.now,
    });
  }

  /** Why `subject` may not make the request `access` describes (403, or 503 when kube-apiserver cannot be asked). */
  async refusal(subject: AccessSubject, access: NginxAccess): Promise<AccessRefusal | undefined> {
    let answer: AccessAnswer;
    try {
      answer = await this.answer(subject, access);
    } catch (error) {
      return unavailable(error);
    }
    return refusalOf(subject, access, answer);
  }

  /** The answer kept for this question, if any still is: for the paths that cannot wait (the relayed-read lane). */
  known(subject: AccessSubject, access: NginxAccess): AccessAnswer | undefined {
    return this.answers.get(keyOf(subject, access));
  }

  /** The answer kept, or kube-apiserver's (then kept); rejects when kube-apiserver could not be asked. */
  answer(subject: AccessSubject, access: NginxAccess): Promise<AccessAnswer> {
    return this.answers.load(keyOf(subject, access), () => this.review(subject, access), this.options.ttlMs);
  }
}

/** One key per question: the same user, groups (in any order) and attributes are the same question. */
function keyOf(subject: AccessSubject, access: NginxAccess): string {
  return JSON.stringify([
    subject.user,
    [...subject.groups].sort(),
    access.verb,
    access.namespace ?? null,
    access.name ?? null,
    access.subresource ?? null,
  ]);
}

/**
 * The refusal for kube-apiserver's `answer`, in kube-apiserver's own words for a forbidden request (`nginxes
 * "web" is forbidden: User "alice" cannot patch resource "nginxes" in API group "mycompany.com" in the namespace
 * "team-b"`) followed by its reason when it gave one (RBAC gives none); undefined when it allowed the request.
 */
export function refusalOf(
  subject: AccessSubject,
  access: NginxAccess,
  answer: AccessAnswer,
): AccessRefusal | undefined {
  if (answer.allowed) return undefined;
  const resource = `${NGINX_PLURAL}${access.subresource ? `/${access.subresource}` : ''}`;
  const object = `${NGINX_PLURAL}.${NGINX_GROUP}${access.name ? ` "${access.name}"` : ''}`;
  const scope =
    access.namespace === undefined ? 'at the cluster scope' : `in the namespace "${access.namespace}"`;
  const message =
    `${object} is forbidden: User "${subject.user}" cannot ${access.verb} resource "${resource}" ` +
    `in API group "${NGINX_GROUP}" ${scope}` +
    (answer.reason ? `: ${answer.reason}` : '');
  return { code: 403, message };
}

/** The refusal when kube-apiserver could not be asked: 503, never an allowed request. */
export function unavailable(error: unknown): AccessRefusal {
  const why = error instanceof Error ? error.message : String(error);
  return {
    code: 503,
    message: `cannot ask the Kubernetes API server whether the request is allowed (SubjectAccessReview): ${why}`,
  };
}
