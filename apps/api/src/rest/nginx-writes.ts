import { Inject, Injectable } from '@nestjs/common';
import type { KubeStatus } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_KIND, type NginxSpec } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { AuditTrail } from '../audit/audit-trail.service.js';
import type { ChangeRecordRow } from '../audit/change-record.js';
import { callerOf } from '../auth/bearer-auth.guard.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { allows } from '../auth/roles.js';
import { ApiServerRelay, type RelayedAnswer } from './api-server-relay.js';
import { StatusError } from './kube-status.js';
import { NginxReads } from './nginx-reads.js';
import { nginxPath, type Subresource } from './nginx-paths.js';
import { kubeQuery, type KubeQuery } from './query-params.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from './request-body.js';
import { checkDeleteOptions, checkNginx, checkPatch, checkScale } from './write-checks.js';

type Verb = ChangeRecordRow['verb'];

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
 * back as it came. Every write by an authenticated caller — accepted or refused — becomes a change record with
 * the caller's token name, the spec before and after, and the answer.
 */
@Injectable()
export class NginxWrites {
  constructor(
    @Inject(ApiServerRelay) private readonly relay: ApiServerRelay,
    @Inject(NginxReads) private readonly reads: NginxReads,
    @Inject(AuditTrail) private readonly audit: AuditTrail,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
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
    return this.run(write, req, res, async () => {
      const raw = await readRawBody(req);
      if (raw.length === 0) return undefined;
      const options = parseBody(raw, mediaType(req) || BODY_TYPES.json, [BODY_TYPES.json]);
      checkDeleteOptions(options);
      return options;
    });
  }

  private async run(
    write: Write,
    req: Request,
    res: Response,
    prepare: (query: KubeQuery) => Promise<unknown>,
  ): Promise<void> {
    const caller = callerOf(req)!;
    const before = write.name ? this.reads.cached(write.namespace, write.name) : undefined;
    let query: KubeQuery = {};
    let answer: RelayedAnswer;
    try {
      // Checked here rather than by the guard (the routes admit viewers) so a refused write is audited too.
      const needed = write.subresource === 'status' ? 'admin' : 'editor';
      if (!allows(caller.role, needed))
        throw new StatusError(
          403,
          `${caller.name} (role ${caller.role}) may not ${write.verb} ${describe(write)}: needs ${needed}` +
            (needed === 'admin' ? ' (status belongs to the controller)' : ''),
        );
      query = kubeQuery(req);
      // Unknown fields are refused unless the caller asks otherwise, as kubectl does by default.
      if (write.method !== 'DELETE') query.fieldValidation ??= 'Strict';
      // managedFields then name the token that changed each field (apply brings its own manager).
      if (write.method !== 'DELETE' && write.verb !== 'apply') query.fieldManager ??= caller.name;
      const body = await prepare(query);
      answer = await this.relay.exchange(
        {
          method: write.method,
          path: nginxPath(write.namespace, write.name, write.subresource),
          query,
          body: body === undefined ? undefined : JSON.stringify(body),
          contentType: write.method === 'PATCH' ? write.patchType : BODY_TYPES.json,
          accept: req.headers.accept,
        },
        req,
      );
    } catch (error) {
      if (error instanceof StatusError) this.record(write, req, query, before?.spec, error.code, error.body);
      throw error;
    }
    this.record(write, req, query, before?.spec, answer.code, decode(answer));
    this.relay.reply(answer, res);
  }

  private record(
    write: Write,
    req: Request,
    query: KubeQuery,
    specBefore: NginxSpec | undefined,
    code: number,
    answer: unknown,
  ): void {
    if (query.dryRun === 'All') return; // nothing was changed
    const caller = callerOf(req)!;
    const object = answer as
      | {
          kind?: string;
          metadata?: { name?: string; uid?: string; resourceVersion?: string };
          spec?: unknown;
        }
      | undefined;
    const status = object?.kind === 'Status' ? (object as KubeStatus) : undefined;
    const ok = code >= 200 && code < 300;
    let specAfter: unknown = null;
    if (ok && write.verb !== 'delete') {
      if (object?.kind === NGINX_KIND) specAfter = object.spec ?? null;
      else if (object?.kind === 'Scale')
        specAfter = { ...specBefore, replicas: (object.spec as { replicas?: number } | undefined)?.replicas };
    }
    this.audit.change({
      at: new Date(),
      actor: caller.name,
      role: caller.role,
      verb: write.verb,
      namespace: write.namespace,
      name: write.name ?? object?.metadata?.name ?? '',
      subresource: write.subresource ?? null,
      patchType: write.patchType ?? null,
      specBefore: specBefore ? JSON.stringify(specBefore) : null,
      specAfter: specAfter === null ? null : JSON.stringify(specAfter),
      code,
      reason: status?.reason ?? null,
      message: status?.message ?? null,
      uid: (status ? undefined : object?.metadata?.uid) ?? null,
      resourceVersion: (ok && !status ? object?.metadata?.resourceVersion : undefined) ?? null,
      userAgent: req.headers['user-agent']?.slice(0, 256) ?? null,
    });
  }
}

function describe(write: Write): string {
  const object = write.name ? `nginxes.${NGINX_GROUP} "${write.name}"` : `nginxes.${NGINX_GROUP}`;
  return `${write.subresource ? `the ${write.subresource} of ` : ''}${object} in ${write.namespace}`;
}

function nameIn(object: unknown): string | undefined {
  const name = (object as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name.slice(0, 253) : undefined;
}

function decode(answer: RelayedAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
