import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { StatusError } from '../http/kube-status.js';
import { NAMESPACE_SCOPED, PUBLIC, REQUIRED_ROLE, type NamespaceSource } from './auth.decorators.js';
import { Authenticator } from './authenticator.js';
import { accessRefusal, type Caller, type Role } from './roles.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The namespace a request names where its route says (own properties only); undefined for none or all. */
function namespaceOf(request: Request, source: NamespaceSource): string | undefined {
  const values = (source === 'path' ? request.params : request.query) as Record<string, unknown> | undefined;
  const given = values && Object.hasOwn(values, 'namespace') ? values.namespace : undefined;
  return typeof given === 'string' && given !== '' ? given : undefined;
}

/** The caller a request was authenticated as (set by BearerAuthGuard). */
export function callerOf(request: Request): Caller | undefined {
  return (request as Request & { caller?: Caller }).caller;
}

/**
 * Every route needs `Authorization: Bearer <token>` unless marked @Public: 401 without a token we take (static,
 * an ID token of the OpenID provider, a ServiceAccount token for our audience: Authenticator), 403 when the
 * caller holds no role the route needs there (or, for an identity, none at all). Both answered as Kubernetes
 * `Status` objects.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(Authenticator) private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // socket.io connections are authenticated once, in their handshake (see LiveGateway).
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const authentication = await this.authenticator.authenticate(request.headers.authorization);
    if ('refused' in authentication)
      throw new StatusError(401, `Unauthorized: ${authentication.refused}`, undefined, {
        'WWW-Authenticate': 'Bearer realm="nginx-control-plane"',
      });
    if ('forbidden' in authentication) throw new StatusError(403, authentication.forbidden);
    const { caller } = authentication;
    (request as Request & { caller?: Caller }).caller = caller;
    const needed: Role =
      this.reflector.getAllAndOverride<Role>(REQUIRED_ROLE, targets) ??
      (READS.has(request.method) ? 'viewer' : 'editor');
    const source = this.reflector.getAllAndOverride<NamespaceSource>(NAMESPACE_SCOPED, targets);
    const namespace = source ? namespaceOf(request, source) : undefined;
    const refusal = accessRefusal(caller, needed, source ? { namespace } : undefined);
    if (refusal === 'role')
      throw new StatusError(
        403,
        `${caller.name} (role ${caller.role}) may not ${request.method} ${request.path}: needs ${needed}`,
      );
    if (refusal === 'namespace')
      throw new StatusError(
        403,
        `${caller.name} is limited to the namespaces ${caller.namespaces!.join(', ')}: ` +
          (namespace ? `not ${namespace}` : 'name one of them'),
      );
    return true;
  }
}
