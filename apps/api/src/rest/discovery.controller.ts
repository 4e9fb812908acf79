import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import {
  NGINX_API_VERSION,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_PLURAL,
  NGINX_SHORT_NAMES,
  NGINX_SINGULAR,
  NGINX_VERSION,
} from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { ApiServerRelay } from './api-server-relay.js';
import { StatusException } from '../http/kube-status.js';

const groupVersion = { groupVersion: NGINX_API_VERSION, version: NGINX_VERSION };
const group = {
  name: NGINX_GROUP,
  versions: [groupVersion],
  preferredVersion: groupVersion,
};
const OPENAPI_GROUP_PATH = `apis/${NGINX_GROUP}/${NGINX_VERSION}`;

/**
 * Discovery, so that kubectl and client libraries can use the control plane as their server: the legacy
 * (non-aggregated) documents listing only the Nginx resource, `/version` and the OpenAPI v3 document of our
 * group, both from the API server. Clients asking for aggregated discovery get the legacy form with a plain
 * JSON content type, which tells them to fall back, as the API server's own older versions do.
 */
@Controller()
export class DiscoveryController {
  private version: { at: number; body: unknown } | undefined;

  constructor(@Inject(ApiServerRelay) private readonly relay: ApiServerRelay) {}

  @Get('version')
  async serverVersion() {
    if (!this.version || Date.now() - this.version.at > 60_000) {
      const answer = await this.relay.exchange({ path: '/version' });
      if (answer.code !== 200)
        throw new StatusException(503, 'the Kubernetes API server did not report its version');
      this.version = { at: Date.now(), body: JSON.parse(answer.body.toString('utf8')) };
    }
    return this.version.body;
  }

  /**
   * The core group, as a server with no core resources answers it: version v1, listing nothing (clients such as
   * the Python DynamicClient read `/api/v1` before any group).
   */
  @Get('api')
  coreGroup() {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  }

  @Get('api/v1')
  coreResources() {
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1', resources: [] };
  }

  @Get('apis')
  groups() {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] };
  }

  @Get(`apis/${NGINX_GROUP}`)
  nginxGroup() {
    return { kind: 'APIGroup', apiVersion: 'v1', ...group };
  }

  @Get(`apis/${NGINX_GROUP}/${NGINX_VERSION}`)
  resources() {
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: NGINX_API_VERSION,
      resources: [
        {
          name: NGINX_PLURAL,
          singularName: NGINX_SINGULAR,
          namespaced: true,
          kind: NGINX_KIND,
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: [...NGINX_SHORT_NAMES],
        },
        {
          name: `${NGINX_PLURAL}/status`,
          singularName: '',
          namespaced: true,
          kind: NGINX_KIND,
          verbs: ['get', 'patch', 'update'],
        },
        {
          name: `${NGINX_PLURAL}/scale`,
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    };
  }

  /** The OpenAPI v3 index, narrowed to our group (kubectl reads it to learn that fieldValidation is supported). */
  @Get('openapi/v3')
  async openapiIndex() {
    const answer = await this.relay.exchange({ path: '/openapi/v3' });
    if (answer.code !== 200)
      throw new StatusException(503, 'the Kubernetes API server did not serve its OpenAPI index');
    const index = JSON.parse(answer.body.toString('utf8')) as { paths?: Record<string, unknown> };
    const ours = index.paths?.[OPENAPI_GROUP_PATH];
    return { paths: ours ? { [OPENAPI_GROUP_PATH]: ours } : {} };
  }

  @Get(`openapi/v3/${OPENAPI_GROUP_PATH}`)
  async openapiGroup(@Req() req: Request, @Res() res: Response) {
    const hash = typeof req.query.hash === 'string' ? req.query.hash : undefined;
    const answer = await this.relay.exchange(
      { path: `/openapi/v3/${OPENAPI_GROUP_PATH}`, query: { hash }, accept: req.headers.accept },
      req,
    );
    this.relay.reply(answer, res);
  }
}
