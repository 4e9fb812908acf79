import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { StatusError } from '../http/kube-status.js';
import { NAMESPACE_SCOPED, PUBLIC, REQUIRED_ROLE, type NamespaceSource } from './auth.decorators.js';
import { accessRefusal, type Caller, type Role } from './roles.js';
import { TokenStore } from './token-store.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The namespace a request names where its route says (own properties only); undefined for none or all. */
function namespaceOf(request: Request, source: NamespaceSource): string | undefined {
  const values = (source === 'path' ? request.params : request.query) as Record<string, unknown> | undefined;
  const given = values && Object.hasOwn(values, 'namespace') ? values.namespace : undefined;
  return typeof given === 'string' && given !== '' ? given : undefined;
}

/** The token of an `Authorization: Bearer <token>` header, if that is what it is. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/** The caller an `Authorization` header names: its bearer token's, if the token is known. */
export function callerFor(tokens: TokenStore, authorization: string | undefined): Caller | undefined {
  const token = bearerToken(authorization);
  return token ? tokens.identify(token) : undefined;
}

/** The caller a request was authenticated as (set by BearerAuthGuard). */
export function callerOf(request: Request): Caller | undefined {
  return (request as Request & { caller?: Caller }).caller;
}

/**
 * Every route needs `Authorization: Bearer <token>` unless marked @Public: 401 without a known token, 403 when
 * the token's role is below what the route needs. Both answered as Kubernetes `Status` objects.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TokenStore) private readonly tokens: TokenStore,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    // socket.io connections are authenticated once, in their handshake (see LiveGateway).
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const caller = callerFor(this.tokens, request.headers.authorization);
    if (!caller)
      throw new StatusError(401, 'Unauthorized: a valid bearer token is required', undefined, {
        'WWW-Authenticate': 'Bearer realm="nginx-control-plane"',
      });
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
