import { All, Controller, Delete, Get, Inject, Param, Patch, Post, Put, Req, Res } from '@nestjs/common';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION } from '@ngx/nginx-api';
import type { Request, Response } from 'express';
import { HandlerAuthorizes, NamespaceScoped } from '../auth/auth.decorators.js';
import { StatusException } from '../http/kube-status.js';
import { NginxReads } from './nginx-reads.js';
import { SUBRESOURCES, type Subresource } from './nginx-paths.js';
import { NginxWrites } from './nginx-writes.js';
import { nameParam, namespaceParam } from '../http/path-params.js';
import { kubeQuery } from './kube-query.js';

function subresourceParam(value: string): Subresource {
  if ((SUBRESOURCES as readonly string[]).includes(value)) return value as Subresource;
  throw new StatusException(
    404,
    `the server could not find the requested resource (${NGINX_PLURAL}/${value.slice(0, 40)})`,
  );
}

/** Writes admit every signed-in caller; NginxWrites authorizes them, so refusals land in the change audit. */
const WritesCheckRoles = HandlerAuthorizes;

/**
 * `/apis/mycompany.com/v1/…nginxes…`, the API server's paths for the Nginx resource, served with its semantics:
 * reads from the informer cache when the request allows it, everything else relayed (see NginxReads,
 * NginxWrites). Path segments are checked first, so `..`, encoded slashes and control characters never reach
 * the API server's URL.
 */
@NamespaceScoped('path')
@Controller(`apis/${NGINX_GROUP}/${NGINX_VERSION}`)
export class NginxRestController {
  constructor(
    @Inject(NginxReads) private readonly reads: NginxReads,
    @Inject(NginxWrites) private readonly writes: NginxWrites,
  ) {}

  @Get(NGINX_PLURAL)
  listAll(@Req() req: Request, @Res() res: Response) {
    return this.reads.list(undefined, kubeQuery(req), req, res);
  }

  @Get(`namespaces/:namespace/${NGINX_PLURAL}`)
  list(@Param('namespace') namespace: string, @Req() req: Request, @Res() res: Response) {
    return this.reads.list(namespaceParam(namespace), kubeQuery(req), req, res);
  }

  @Post(`namespaces/:namespace/${NGINX_PLURAL}`)
  @WritesCheckRoles()
  create(@Param('namespace') namespace: string, @Req() req: Request, @Res() res: Response) {
    return this.writes.create(namespaceParam(namespace), req, res);
  }

  @Delete(`namespaces/:namespace/${NGINX_PLURAL}`)
  @WritesCheckRoles()
  removeCollection(@Param('namespace') namespace: string, @Req() req: Request, @Res() res: Response) {
    return this.writes.removeCollection(namespaceParam(namespace), req, res);
  }

  /** The API server takes a POST to an object's path as a create of the body (whose name is the object's). */
  @Post(`namespaces/:namespace/${NGINX_PLURAL}/:name`)
  @WritesCheckRoles()
  createAtName(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    nameParam(name);
    return this.writes.create(namespaceParam(namespace), req, res);
  }

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name`)
  get(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.reads.get(namespaceParam(namespace), nameParam(name), kubeQuery(req), req, res);
  }

  @Put(`namespaces/:namespace/${NGINX_PLURAL}/:name`)
  @WritesCheckRoles()
  replace(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.writes.replace(namespaceParam(namespace), nameParam(name), undefined, req, res);
  }

  @Patch(`namespaces/:namespace/${NGINX_PLURAL}/:name`)
  @WritesCheckRoles()
  patch(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.writes.patch(namespaceParam(namespace), nameParam(name), undefined, req, res);
  }

  @Delete(`namespaces/:namespace/${NGINX_PLURAL}/:name`)
  @WritesCheckRoles()
  remove(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.writes.remove(namespaceParam(namespace), nameParam(name), req, res);
  }

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/:subresource`)
  async getSubresource(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Param('subresource') subresource: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const path = [namespaceParam(namespace), nameParam(name), subresourceParam(subresource)] as const;
    return this.reads.subresource(...path, kubeQuery(req), req, res);
  }

  @Put(`namespaces/:namespace/${NGINX_PLURAL}/:name/:subresource`)
  @WritesCheckRoles()
  replaceSubresource(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Param('subresource') subresource: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.writes.replace(
      namespaceParam(namespace),
      nameParam(name),
      subresourceParam(subresource),
      req,
      res,
    );
  }

  @Patch(`namespaces/:namespace/${NGINX_PLURAL}/:name/:subresource`)
  @WritesCheckRoles()
  patchSubresource(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Param('subresource') subresource: string,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.writes.patch(
      namespaceParam(namespace),
      nameParam(name),
      subresourceParam(subresource),
      req,
      res,
    );
  }

  // Declared last: Express tries routes in order, so these see only the methods no route above serves.

  /** The API server's answer to a PUT or PATCH of a collection: it needs an object's name. */
  @All(`namespaces/:namespace/${NGINX_PLURAL}`)
  @WritesCheckRoles()
  unservedOnCollection(@Param('namespace') namespace: string): never {
    namespaceParam(namespace);
    throw new StatusException(400, 'name must be provided');
  }

  /** POST or DELETE of status or scale: 405, in the API server's words (an unknown subresource is 404). */
  @All(`namespaces/:namespace/${NGINX_PLURAL}/:name/:subresource`)
  @WritesCheckRoles()
  unservedOnSubresource(
    @Param('namespace') namespace: string,
    @Param('name') name: string,
    @Param('subresource') subresource: string,
    @Req() req: Request,
  ): never {
    namespaceParam(namespace);
    nameParam(name);
    subresourceParam(subresource);
    const verb = req.method === 'POST' ? 'create' : req.method.toLowerCase();
    throw new StatusException(
      405,
      `${verb} is not supported on resources of kind "${NGINX_PLURAL}.${NGINX_GROUP}"`,
      { group: NGINX_GROUP, kind: NGINX_PLURAL },
    );
  }
}
