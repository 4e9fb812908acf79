import { All, Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { KubeClient, errorMessage, isApiError, objectPath } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, abortPlan, promotePlan, type Nginx } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { HandlerAuthorizes, NamespaceScoped, RequiresRole } from '../auth/auth.decorators.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { StatusException } from '../http/kube-status.js';
import { nameParam, namespaceParam } from '../http/path-params.js';
import { promoteOptions, unservedMethod } from './canary-requests.js';
import { RevisionWrites } from './revision-writes.js';

/**
 * `/controlplane/v1/namespaces/{ns}/nginxes/{name}/promote` (`?full=true`: past every step; `?step=n`: only if n
 * is the current step) and `…/abort`: a canary's requests, written as the caller (an editor) as annotations the
 * controller honours (see ANNOTATION_PROMOTE), through the REST layer's writes, recorded in the change audit as
 * `promote` or `abort`. 409 when no canary is in progress. Answers the Nginx.
 */
@NamespaceScoped('path')
@Controller(CONTROLPLANE_API_VERSION)
export class CanaryController {
  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(RevisionWrites) private readonly writes: RevisionWrites,
  ) {}

  /** Admits every signed-in caller: RevisionWrites authorizes it, so a refusal is audited too. */
  @Post(`namespaces/:namespace/${NGINX_PLURAL}/:name/promote`)
  @HandlerAuthorizes()
  promote(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const [ns, nginxName] = [namespaceParam(namespace), nameParam(name)];
    return this.writes.canaryRequest('promote', ns, nginxName, req, res, async () => {
      const options = promoteOptions(req.query as Record<string, unknown>);
      return promotePlan(await this.nginx(ns, nginxName), options);
    });
  }

  @Post(`namespaces/:namespace/${NGINX_PLURAL}/:name/abort`)
  @HandlerAuthorizes()
  abort(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const [ns, nginxName] = [namespaceParam(namespace), nameParam(name)];
    return this.writes.canaryRequest('abort', ns, nginxName, req, res, async () =>
      abortPlan(await this.nginx(ns, nginxName)),
    );
  }

  /** Any other method on the request paths (declared after the POSTs, so it gets only what they leave). */
  @All(`namespaces/:namespace/${NGINX_PLURAL}/:name/promote`)
  @RequiresRole('viewer')
  promoteUnserved(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
  ): never {
    namespaceParam(namespace);
    nameParam(name);
    throw unservedMethod(req.method, 'promote');
  }

  @All(`namespaces/:namespace/${NGINX_PLURAL}/:name/abort`)
  @RequiresRole('viewer')
  abortUnserved(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
  ): never {
    namespaceParam(namespace);
    nameParam(name);
    throw unservedMethod(req.method, 'abort');
  }

  /** The Nginx as the API server has it now (its 404 Status when there is none). */
  private async nginx(namespace: string, name: string): Promise<Nginx> {
    const path = objectPath(
      { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL, namespace },
      name,
    );
    try {
      return await this.client.request<Nginx>({ path, priority: 'exempt' });
    } catch (error) {
      if (isApiError(error)) throw error;
      throw new StatusException(503, `the Kubernetes API server is unavailable: ${errorMessage(error)}`);
    }
  }
}
