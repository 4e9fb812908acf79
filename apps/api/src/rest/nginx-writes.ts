import { Inject, Injectable } from '@nestjs/common';
import { NGINX_GROUP, RequestRefused, type WritePlan } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import type { ChangeRecordRow } from '../audit/change-record.js';
import { Authorization } from '../auth/authorization.js';
import { RefusalRecorder } from '../auth/refusal-recorder.js';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { impersonationOf } from '../auth/kubernetes/caller-subject.js';
import { accessRefusal, roleNeeded, type Caller } from '../auth/roles.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ApiServerRelay, type RelayedAnswer } from './api-server-relay.js';
import { StatusException } from '../http/kube-status.js';
import { NginxReads } from './nginx-reads.js';
import { nginxPath, type Subresource } from './nginx-paths.js';
import { kubeQuery, type KubeQuery } from './kube-query.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import { checkDeleteOptions, checkNginx, checkPatch, checkScale } from './write-checks.js';
import { attemptOf } from './write-attempt.js';
import { fieldManagerFor } from './field-manager.js';
import { RevisionWrites } from '../controlplane/revision-writes.js';
import { requestTrace } from '../tracing/server-spans.js';

type Verb = ChangeRecordRow['verb'];

/** What a write's preparation found: there is nothing to send, and this object is the answer (200). */
class Unchanged {
  constructor(readonly object: unknown) {}
}

/** One write as the REST layer sees it: where it goes, and the body to send (already checked). */
interface Write {
  verb: Verb;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  namespace: string;
  /** Undefined for a create whose name comes from generateName. */
  name: string | undefined;
  subresource?: Subresource;
  patchType?: string;
}

/**
 * Writes to Nginx objects: the body is parsed and checked against the shared schema (a clear 4xx naming the
 * field, and nothing sent, when it is wrong), then relayed to the API server, which decides; its answer goes
 * back as it came. `fieldManager` is chosen as the API server chooses it (fieldManagerFor); the change record says
 * who the caller was. With AUTHORIZATION=kubernetes each write is first asked of the cluster's RBAC for the caller
 * (a SubjectAccessReview), then sent impersonating the caller, so kube-apiserver's RBAC, admission and audit log
 * see the person: this is the one place the REST layer's writes (rollbacks included) leave for kube-apiserver.
 * Every attempt, accepted or refused, is recorded in the change audit by ChangeAuditMiddleware, with what this
 * class adds to it: the spec before, the name of a create, the answer.
 */
@Injectable()
export class NginxWrites implements RevisionWrites {
  constructor(
    @Inject(ApiServerRelay) private readonly relay: ApiServerRelay,
    @Inject(NginxReads) private readonly reads: NginxReads,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(Authorization) private readonly authorization: Authorization,
    @Inject(RefusalRecorder) private readonly refusals: RefusalRecorder,
  ) {}

  create(namespace: string, req: Request, res: Response): Promise<void> {
    const write: Write = { verb: 'create', method: 'POST', namespace, name: undefined };
    return this.run(write, req, res, async (query) => {
      const object = parseBody(await readRawBody(req), mediaType(req), [BODY_TYPES.json, BODY_TYPES.yaml]);
      write.name = nameIn(object);
      checkNginx(object, {
        namespace,
        fieldValidation: query.fieldValidation,
        imageAllowlist: this.config.imageAllowlist,
      });
      return object;
    });
  }

  replace(
    namespace: string,
    name: string,
    subresource: Subresource | undefined,
    req: Request,
    res: Response,
  ) {
    const write: Write = { verb: 'update', method: 'PUT', namespace, name, subresource };
    return this.run(write, req, res, async (query) => {
      const object = parseBody(await readRawBody(req), mediaType(req), [BODY_TYPES.json, BODY_TYPES.yaml]);
      if (subresource === 'scale') checkScale(object, { name, namespace });
      else
        checkNginx(object, {
          namespace,
          name,
          fieldValidation: query.fieldValidation,
          status: subresource === 'status',
          imageAllowlist: this.config.imageAllowlist,
        });
      return object;
    });
  }

  patch(namespace: string, name: string, subresource: Subresource | undefined, req: Request, res: Response) {
    const type = mediaType(req);
    const write: Write = {
      verb: type === BODY_TYPES.apply ? 'apply' : 'patch',
      method: 'PATCH',
      namespace,
      name,
      subresource,
      patchType: type,
    };
    return this.run(write, req, res, async (query) => {
      const patch = parseBody(await readRawBody(req), type, [
        BODY_TYPES.mergePatch,
        BODY_TYPES.jsonPatch,
        BODY_TYPES.apply,
      ]);
      checkPatch(patch, type, {
        namespace,
        name,
        subresource,
        fieldValidation: query.fieldValidation,
        imageAllowlist: this.config.imageAllowlist,
      });
      return patch;
    });
  }

  remove(namespace: string, name: string, req: Request, res: Response): Promise<void> {
    const write: Write = { verb: 'delete', method: 'DELETE', namespace, name };
    return this.run(write, req, res, () => deleteOptions(req));
  }

  /**
   * DeleteCollection: the Nginxes of one namespace that the selectors match, deleted by the API server (which
   * checks the selectors before deleting any) and answered with their list; one change record for each.
   */
  removeCollection(namespace: string, req: Request, res: Response): Promise<void> {
    const write: Write = { verb: 'deletecollection', method: 'DELETE', namespace, name: undefined };
    return this.run(write, req, res, () => deleteOptions(req));
  }

  /**
   * The control plane's rollback to a revision (see RevisionWrites): a merge patch of the template fields made
   * as the caller, like a PATCH here, once `plan` has read the Nginx and the revision. The spec before is the one
   * `plan` read; a plan with nothing to write answers the Nginx as read, and nothing is sent.
   */
  rollback(
    namespace: string,
    name: string,
    req: Request,
    res: Response,
    plan: () => Promise<WritePlan>,
  ): Promise<void> {
    return this.planned('rollback', namespace, name, req, res, plan);
  }

  /** A canary's promote or abort (see RevisionWrites): the annotation patch `plan` decides, made as the caller. */
  canaryRequest(
    verb: 'promote' | 'abort',
    namespace: string,
    name: string,
    req: Request,
    res: Response,
    plan: () => Promise<WritePlan>,
  ): Promise<void> {
    return this.planned(verb, namespace, name, req, res, plan);
  }

  private planned(
    verb: 'rollback' | 'promote' | 'abort',
    namespace: string,
    name: string,
    req: Request,
    res: Response,
    plan: () => Promise<WritePlan>,
  ): Promise<void> {
    const write: Write = {
      verb,
      method: 'PATCH',
      namespace,
      name,
      patchType: BODY_TYPES.mergePatch,
    };
    return this.run(write, req, res, async (query) => {
      const { nginx, patch } = await plan().catch((error: unknown) => {
        // The plan's own refusals (no canary in progress, no such revision …) are answered as the Status they name.
        throw error instanceof RequestRefused
          ? new StatusException(error.code, error.message, error.details)
          : error;
      });
      const attempt = attemptOf(req);
      if (attempt) attempt.specBefore = nginx.spec;
      if (patch === undefined) return new Unchanged(nginx);
      checkPatch(patch, BODY_TYPES.mergePatch, {
        namespace,
        name,
        fieldValidation: query.fieldValidation,
        imageAllowlist: this.config.imageAllowlist,
      });
      return patch;
    });
  }

  private async run(
    write: Write,
    req: Request,
    res: Response,
    prepare: (query: KubeQuery) => Promise<unknown>,
  ): Promise<void> {
    const caller = callerOf(req)!;
    // ChangeAuditMiddleware records the attempt once this is done; here it learns what only the handler knows.
    const attempt = attemptOf(req);
    let done!: () => void;
    if (attempt) attempt.handling = new Promise<void>((resolve) => (done = resolve));
    try {
      if (attempt)
        attempt.specBefore = write.name ? this.reads.cached(write.namespace, write.name)?.spec : undefined;
      const answer = await this.exchange(write, req, caller, prepare).catch((error: unknown) => {
        if (error instanceof StatusException && attempt)
          attempt.outcome = { code: error.code, answer: error.body };
        throw error;
      });
      if (attempt) attempt.outcome = { code: answer.code, answer: decode(answer) };
      this.relay.reply(answer, res);
    } finally {
      // A create's name is known only once its body is read (refused or not).
      if (attempt && write.name !== undefined) attempt.name = write.name;
      done?.();
    }
  }

  /**
   * A write its caller may not make, as the Status answered; counted among the refused requests too (the change
   * audit records the write itself).
   */
  private refuse(req: Request, caller: Caller, code: 403 | 503, message: string): StatusException {
    const reason = this.authorization.kubernetes
      ? code === 403
        ? 'rbac-denied'
        : 'rbac-unavailable'
      : 'role';
    this.refusals.record({ door: 'rest', code, reason, subject: caller.name, address: req.ip, message });
    return new StatusException(code, message);
  }

  /** Checks the write, then relays it: to the end, even if the client goes away (its outcome is recorded). */
  private async exchange(
    write: Write,
    req: Request,
    caller: Caller,
    prepare: (query: KubeQuery) => Promise<unknown>,
  ): Promise<RelayedAnswer> {
    // Checked here rather than by the guard (the routes admit viewers) so a refused write is audited too.
    const kubeVerb = ['apply', 'rollback', 'promote', 'abort'].includes(write.verb) ? 'patch' : write.verb;
    const kubernetes = this.authorization.kubernetes;
    if (kubernetes) {
      const refusal = await kubernetes.refusal(caller, {
        verb: kubeVerb,
        namespace: write.namespace,
        // A create names its object only in the body, and kube-apiserver authorizes it on the collection.
        ...(write.verb !== 'create' && write.name !== undefined ? { name: write.name } : {}),
        ...(write.subresource ? { subresource: write.subresource } : {}),
      });
      if (refusal) throw this.refuse(req, caller, refusal.code, refusal.message);
    } else {
      const needed = roleNeeded(kubeVerb, write.subresource)!;
      if (accessRefusal(caller, needed, { namespace: write.namespace }) !== undefined)
        throw this.refuse(
          req,
          caller,
          403,
          `${caller.name} (role ${caller.role}${caller.grants ? ` in some namespaces` : ''}) may not ${write.verb} ` +
            `${describe(write)}: needs ${needed}` +
            (needed === 'admin' ? ' (status belongs to the controller)' : ''),
        );
    }
    const query = kubeQuery(req);
    const attempt = attemptOf(req);
    if (write.method !== 'DELETE') {
      const manager = fieldManagerFor(query.fieldManager, req.headers['user-agent'], write.verb === 'apply');
      if (manager === undefined) delete query.fieldManager;
      else query.fieldManager = manager;
      if (attempt) attempt.fieldManager = manager;
    }
    const body = await prepare(query);
    const answer =
      body instanceof Unchanged
        ? unchangedAnswer(body.object)
        : await this.relay.exchange({
            method: write.method,
            path: nginxPath(write.namespace, write.name, write.subresource),
            query,
            body: body === undefined ? undefined : JSON.stringify(body),
            contentType: write.method === 'PATCH' ? write.patchType : BODY_TYPES.json,
            accept: req.headers.accept,
            auditId: attempt?.auditId,
            trace: requestTrace(req),
            ...(kubernetes ? { impersonate: impersonationOf(caller) } : {}),
          });
    return answer;
  }
}

/** The DeleteOptions a DELETE may carry as its body (none when it is empty). */
async function deleteOptions(req: Request): Promise<unknown> {
  const raw = await readRawBody(req);
  if (raw.length === 0) return undefined;
  const options = parseBody(raw, mediaType(req), [BODY_TYPES.json]);
  checkDeleteOptions(options);
  return options;
}

function describe(write: Write): string {
  const object = write.name ? `nginxes.${NGINX_GROUP} "${write.name}"` : `nginxes.${NGINX_GROUP}`;
  return `${write.subresource ? `the ${write.subresource} of ` : ''}${object} in ${write.namespace}`;
}

function nameIn(object: unknown): string | undefined {
  const name = (object as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name.slice(0, 253) : undefined;
}

/** The answer to a write that had nothing to send: the object as it is, as the API server would give it. */
function unchangedAnswer(object: unknown): RelayedAnswer {
  return {
    code: 200,
    headers: { 'content-type': BODY_TYPES.json },
    body: Buffer.from(JSON.stringify(object)),
  };
}

function decode(answer: RelayedAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
