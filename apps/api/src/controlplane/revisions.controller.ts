import { Controller, Get, Inject, Logger, Param, Post, Req, Res } from '@nestjs/common';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { KubeClient, collectionPath, errorMessage, isApiError, objectPath } from '@ngx/kube-runtime';
import {
  LABEL_NGINX,
  NGINX_GROUP,
  NGINX_PLURAL,
  NGINX_VERSION,
  revisionNumbered,
  revisionsOf,
  rollbackPlan,
  type Nginx,
  type Revision,
  type RevisionItem,
  type RevisionList,
} from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { AuditReader } from '../audit/audit-reader.js';
import { PrismaService } from '../audit/prisma.service.js';
import { HandlerAuthorizes, NamespaceScoped } from '../auth/auth.decorators.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { StatusException } from '../http/kube-status.js';
import { nameParam, namespaceParam } from '../http/path-params.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { RevisionWrites } from './revision-writes.js';
import {
  introducingChanges,
  revisionItems,
  revisionParam,
  rollbackOptions,
  type RevisionChange,
} from './revisions.js';

/** How long the list waits for the change audit before answering without it (`change: null`). */
const AUDIT_WAIT_MS = 2000;

const nginxes = (namespace: string) => ({
  group: NGINX_GROUP,
  version: NGINX_VERSION,
  plural: NGINX_PLURAL,
  namespace,
});

/**
 * `/controlplane/v1/namespaces/{ns}/nginxes/{name}/revisions`: the revisions of one Nginx (the ControllerRevisions
 * the controller keeps, read from the API server) with the write that introduced each, and
 * `…/revisions/{n}/rollback`, which writes revision n's template back into the spec as the caller (an editor),
 * through the REST layer's writes (RevisionWrites), recorded in the change audit as `rollback`.
 */
@NamespaceScoped('path')
@Controller(CONTROLPLANE_API_VERSION)
export class RevisionsController {
  private readonly logger = nestRuntimeLogger(new Logger('Revisions'));
  private readonly audit: AuditReader;

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(RevisionWrites) private readonly writes: RevisionWrites,
    @Inject(PrismaService) database: PrismaService,
  ) {
    this.audit = new AuditReader(() => database.client());
  }

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/revisions`)
  async list(@Param('namespace') namespace: string, @Param('name') name: string): Promise<RevisionList> {
    const ns = namespaceParam(namespace);
    const nginx = await this.nginx(ns, nameParam(name));
    const { revisions, resourceVersion } = await this.revisions(nginx);
    const changes = await this.changes(nginx, revisions);
    const items: RevisionItem[] = revisionItems(nginx, revisions, changes);
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'RevisionList',
      metadata: { resourceVersion },
      nginx: {
        namespace: nginx.metadata.namespace!,
        name: nginx.metadata.name!,
        uid: nginx.metadata.uid!,
        resourceVersion: nginx.metadata.resourceVersion!,
      },
      items,
    };
  }

  /** Admits every signed-in caller: RevisionWrites authorizes it, so a refusal is audited too. */
  @Post(`namespaces/:namespace/${NGINX_PLURAL}/:name/revisions/:revision/rollback`)
  @HandlerAuthorizes()
  rollback(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Param('revision') revision: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const ns = namespaceParam(namespace);
    const nginxName = nameParam(name);
    const number = revisionParam(revision);
    return this.writes.rollback(ns, nginxName, req, res, async () => {
      const raw = await readRawBody(req);
      const body = raw.length === 0 ? undefined : parseBody(raw, mediaType(req), [BODY_TYPES.json]);
      const options = rollbackOptions(body);
      const nginx = await this.nginx(ns, nginxName);
      const { revisions } = await this.revisions(nginx);
      return rollbackPlan(nginx, revisionNumbered(nginx, revisions, number), options);
    });
  }

  /** The Nginx as the API server has it now (its 404 Status when there is none). */
  private nginx(namespace: string, name: string): Promise<Nginx> {
    return this.read<Nginx>(objectPath(nginxes(namespace), name));
  }

  /** The Nginx's ControllerRevisions: a LIST by its label, kept to those it controls. */
  private async revisions(nginx: Nginx): Promise<{ revisions: Revision[]; resourceVersion?: string }> {
    const list = await this.read<{ items: V1ControllerRevision[]; metadata?: { resourceVersion?: string } }>(
      collectionPath({
        group: 'apps',
        version: 'v1',
        plural: 'controllerrevisions',
        namespace: nginx.metadata.namespace,
      }),
      { labelSelector: `${LABEL_NGINX}=${nginx.metadata.name}` },
    );
    return {
      revisions: revisionsOf(nginx, list.items ?? []),
      resourceVersion: list.metadata?.resourceVersion,
    };
  }

  private async read<T>(path: string, query?: Record<string, string>): Promise<T> {
    try {
      // A user's read, under the token's rate limit rather than the controller's QPS.
      return await this.client.request<T>({ path, query, priority: 'exempt' });
    } catch (error) {
      if (isApiError(error)) throw error;
      throw new StatusException(503, `the Kubernetes API server is unavailable: ${errorMessage(error)}`);
    }
  }

  /** The writes that introduced the revisions; none (every `change` null) when the audit database fails or lags. */
  private async changes(nginx: Nginx, revisions: readonly Revision[]): Promise<Map<string, RevisionChange>> {
    const { namespace = '', name = '', uid = '' } = nginx.metadata;
    const stop = new AbortController();
    const lookup = introducingChanges(
      revisions.map((revision) => revision.hash),
      this.audit.specChanges({ namespace, name, uid }),
      { signal: stop.signal },
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${AUDIT_WAIT_MS} ms`)), AUDIT_WAIT_MS);
    });
    try {
      return await Promise.race([lookup, timeout]);
    } catch (error) {
      stop.abort(); // a lookup still waiting on the database reads no further batch
      lookup.catch(() => {});
      this.logger.warn('revisions listed without their changes: the audit database failed', {
        namespace,
        name,
        error: errorMessage(error),
      });
      return new Map();
    } finally {
      clearTimeout(timer);
    }
  }
}
