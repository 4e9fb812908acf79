import { NGINX_GROUP, NGINX_KIND, NGINX_PLURAL, NGINX_VERSION, type NginxSpec } from '@ngx/nginx-api';
import type { KubeStatus } from '@ngx/kube-runtime';
import type { Request } from 'express';
import {
  joinKeys,
  type ChangeRecordRow,
  type ChangeSubresource,
  type ChangeVerb,
} from '../audit/change-record.js';
import { changePerson } from '../audit/change-person.js';
import { restAuditId } from '../audit/request-audit-id.js';
import type { Caller } from '../auth/roles.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { BODY_TYPES, mediaType } from '../http/request-body.js';
import { SUBRESOURCES } from './nginx-paths.js';

const WRITE_VERBS = new Map<string, ChangeVerb>([
  ['POST', 'create'],
  ['PUT', 'update'],
  ['PATCH', 'patch'],
  ['DELETE', 'delete'],
]);

const NGINX_WRITE_PATH = new RegExp(
  `^/apis/${NGINX_GROUP.replaceAll('.', '\\.')}/${NGINX_VERSION}/namespaces/([^/]*)/${NGINX_PLURAL}(?:/([^/]*)(?:/([^/]*))?)?/?$`,
);

/** The control plane's rollback of an Nginx to one of its revisions (a POST, recorded as verb `rollback`). */
const NGINX_ROLLBACK_PATH = new RegExp(
  `^/${CONTROLPLANE_API_VERSION}/namespaces/([^/]*)/${NGINX_PLURAL}/([^/]*)/revisions/[^/]*/rollback/?$`,
);

/** The control plane's promote or abort of an Nginx's canary (a POST, recorded as verb `promote` or `abort`). */
const NGINX_CANARY_PATH = new RegExp(
  `^/${CONTROLPLANE_API_VERSION}/namespaces/([^/]*)/${NGINX_PLURAL}/([^/]*)/(promote|abort)/?$`,
);

/** What the API server (or the control plane itself) answered a write: its code and decoded body. */
export interface WriteOutcome {
  code: number;
  answer: unknown;
}

/**
 * One write request to an Nginx, as the change audit records it. Created for every write request when it
 * arrives, filled in as the request goes on (the handler adds the spec before and the API server's answer), and
 * recorded exactly once when it is over — whoever refused it: the guard (a foreign namespace), the rate limit,
 * the path checks, the body checks, or the API server.
 */
export class WriteAttempt {
  readonly verb: ChangeVerb;
  readonly namespace: string;
  /** From the URL, or for a create the body's metadata.name once read. */
  name: string;
  readonly subresource: ChangeSubresource | null;
  readonly patchType: string | null;
  specBefore: NginxSpec | undefined;
  /** The answer, once the handler has one (then it is the true outcome, even if the client went away). */
  outcome: WriteOutcome | undefined;
  /** A dry run changes nothing and is not recorded. */
  dryRun = false;
  /** Settles when the handler is done with the request (undefined: it never got it). */
  handling: Promise<unknown> | undefined;
  /** Sent to kube-apiserver as the write's Audit-ID, which joins its audit event to this record. */
  readonly auditId = restAuditId();
  /** The field manager the write was relayed with (none for a delete, or a write never relayed). */
  fieldManager: string | undefined;

  constructor(fields: Pick<WriteAttempt, 'verb' | 'namespace' | 'name' | 'subresource' | 'patchType'>) {
    this.verb = fields.verb;
    this.namespace = fields.namespace;
    this.name = fields.name;
    this.subresource = fields.subresource;
    this.patchType = fields.patchType;
  }

  /**
   * The write a request makes, from its method, path and content type; undefined when it is not a write to an
   * Nginx. Path segments are taken as given (they may be invalid: the record then shows what was asked).
   */
  static of(request: Request): WriteAttempt | undefined {
    const attempt =
      WriteAttempt.restWrite(request) ?? WriteAttempt.rollback(request) ?? WriteAttempt.canary(request);
    if (!attempt) return undefined;
    const query = request.query as Record<string, unknown>;
    attempt.dryRun = Object.hasOwn(query, 'dryRun') && query.dryRun === 'All';
    return attempt;
  }

  /** A write through the Kubernetes-style REST API (`/apis/mycompany.com/v1/…nginxes…`). */
  private static restWrite(request: Request): WriteAttempt | undefined {
    const verb = WRITE_VERBS.get(request.method);
    const match = verb && NGINX_WRITE_PATH.exec(request.path);
    if (!verb || !match) return undefined;
    const [, namespace = '', name = '', subresource] = match.map((segment) => segment && decoded(segment));
    const type = mediaType(request);
    const isPatch = request.method === 'PATCH';
    const collection = match[2] === undefined;
    return new WriteAttempt({
      verb:
        isPatch && type === BODY_TYPES.apply
          ? 'apply'
          : verb === 'delete' && collection
            ? 'deletecollection'
            : verb,
      namespace,
      name,
      subresource: (SUBRESOURCES as readonly (string | undefined)[]).includes(subresource)
        ? (subresource as ChangeSubresource)
        : null,
      patchType: isPatch ? type || null : null,
    });
  }

  /** `POST /controlplane/v1/namespaces/{ns}/nginxes/{name}/revisions/{n}/rollback` (its body is no patch). */
  private static rollback(request: Request): WriteAttempt | undefined {
    const match = request.method === 'POST' ? NGINX_ROLLBACK_PATH.exec(request.path) : null;
    if (!match) return undefined;
    const [, namespace = '', name = ''] = match.map((segment) => segment && decoded(segment));
    return new WriteAttempt({ verb: 'rollback', namespace, name, subresource: null, patchType: null });
  }

  /** `POST /controlplane/v1/namespaces/{ns}/nginxes/{name}/promote` or `…/abort`. */
  private static canary(request: Request): WriteAttempt | undefined {
    const match = request.method === 'POST' ? NGINX_CANARY_PATH.exec(request.path) : null;
    if (!match) return undefined;
    const [, namespace = '', name = ''] = match.map((segment) => segment && decoded(segment));
    const verb = match[3] as 'promote' | 'abort';
    return new WriteAttempt({ verb, namespace, name, subresource: null, patchType: null });
  }

  /**
   * The change records of this attempt by `caller`, with `outcome` (the handler's, or what was answered): one,
   * except for a collection delete the API server carried out, which is one for each Nginx it deleted (with that
   * Nginx's name, uid and spec) and none when it matched nothing.
   */
  records(caller: Caller, outcome: WriteOutcome, userAgent: string | undefined): ChangeRecordRow[] {
    const deleted = this.verb === 'deletecollection' ? deletedItems(outcome) : undefined;
    if (!deleted) return [this.record(caller, outcome, userAgent)];
    return deleted.map((item) =>
      this.record(
        caller,
        { code: outcome.code, answer: item },
        userAgent,
        item.spec as NginxSpec | undefined,
        joinKeys.requestItem(this.auditId, item.metadata?.name ?? ''),
      ),
    );
  }

  private record(
    caller: Caller,
    outcome: WriteOutcome,
    userAgent: string | undefined,
    specBefore = this.specBefore,
    joinKey = joinKeys.request(this.auditId),
  ): ChangeRecordRow {
    const { code, answer } = outcome;
    const object = answer as
      | {
          kind?: string;
          metadata?: { name?: string; uid?: string; resourceVersion?: string; generation?: unknown };
          spec?: unknown;
        }
      | undefined;
    const status = object?.kind === 'Status' ? (object as KubeStatus) : undefined;
    const ok = code >= 200 && code < 300;
    let specAfter: unknown = null;
    if (ok && this.verb !== 'delete' && this.verb !== 'deletecollection') {
      if (object?.kind === NGINX_KIND) specAfter = object.spec ?? null;
      else if (object?.kind === 'Scale')
        specAfter = {
          ...this.specBefore,
          replicas: (object.spec as { replicas?: number } | undefined)?.replicas,
        };
    }
    return {
      at: new Date(),
      actor: caller.name,
      role: caller.rbac ? '' : caller.role,
      ...changePerson(caller),
      verb: this.verb,
      namespace: this.namespace,
      name: this.name || (object?.metadata?.name ?? ''),
      subresource: this.subresource,
      patchType: this.patchType,
      specBefore: specBefore ? JSON.stringify(specBefore) : null,
      specAfter: specAfter === null ? null : JSON.stringify(specAfter),
      code,
      reason: status?.reason ?? null,
      message: status?.message ?? null,
      // A custom resource deleted at once is answered a Status that names its uid.
      uid:
        (status
          ? ok
            ? (status.details as { uid?: string } | undefined)?.uid
            : undefined
          : object?.metadata?.uid) ?? null,
      resourceVersion: (ok && !status ? object?.metadata?.resourceVersion : undefined) ?? null,
      userAgent: userAgent?.slice(0, 256) ?? null,
      door: 'controlplane',
      source: 'controlplane',
      auditId: this.auditId,
      fieldManager: this.fieldManager ?? null,
      generation:
        ok && !status && Number.isInteger(object?.metadata?.generation)
          ? (object!.metadata!.generation as number)
          : null,
      joinKey,
    };
  }
}

/** The Nginxes a successful collection delete answered with (its list's items); undefined for any other answer. */
function deletedItems(outcome: WriteOutcome): DeletedItem[] | undefined {
  const list = outcome.answer as { kind?: unknown; items?: unknown } | undefined;
  const ok = outcome.code >= 200 && outcome.code < 300;
  if (!ok || typeof list?.kind !== 'string' || !list.kind.endsWith('List') || !Array.isArray(list.items))
    return undefined;
  return list.items.filter((item): item is DeletedItem => typeof item === 'object' && item !== null);
}

/** A path segment with its percent-encoding undone, or as it came when that encoding is broken. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

interface DeletedItem {
  metadata?: { name?: string };
  spec?: unknown;
}

const ATTEMPT = Symbol('write attempt');

/** The write attempt the change-audit middleware attached to a request, if it is a write. */
export function attemptOf(request: Request): WriteAttempt | undefined {
  return (request as Request & { [ATTEMPT]?: WriteAttempt })[ATTEMPT];
}

export function attachAttempt(request: Request, attempt: WriteAttempt): void {
  (request as Request & { [ATTEMPT]?: WriteAttempt })[ATTEMPT] = attempt;
}
