import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { StatusException } from '../http/kube-status.js';
import {
  HANDLER_AUTHORIZES,
  NAMESPACE_SCOPED,
  PUBLIC,
  REQUIRED_ROLE,
  type NamespaceSource,
} from './auth.decorators.js';
import { Authenticator } from './authenticator.js';
import { Authorization } from './authorization.js';
import type { KubernetesAuthorizer } from './kubernetes/kubernetes-authorizer.js';
import { routeAccess } from './kubernetes/route-access.js';
import { RefusalRecorder, type Refusal } from './refusal-recorder.js';
import { accessRefusal, type Caller, type Role } from './roles.js';
import { crossSiteRefusal } from './session/request-origin.js';
import { credentialOf, sessionIdOf } from './session/session-cookies.js';
import { SessionStore } from './session/session-store.js';

/** The header a cookie-authenticated write carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The namespace a request names where its route says (own properties only); undefined for none or all. */
function namespaceOf(request: Request, source: NamespaceSource): string | undefined {
  const values = (source === 'path' ? request.params : request.query) as Record<string, unknown> | undefined;
  const given = values && Object.hasOwn(values, 'namespace') ? values.namespace : undefined;
  return typeof given === 'string' && given !== '' ? given : undefined;
}

const stringHeader = (value: string | string[] | undefined) =>
  typeof value === 'string' ? value : undefined;

/** The caller a request was authenticated as (set by BearerAuthGuard). */
export function callerOf(request: Request): Caller | undefined {
  return (request as Request & { caller?: Caller }).caller;
}

/** A string path or query parameter of the request (own properties only). */
function param(values: unknown, name: string): string | undefined {
  const given =
    values && typeof values === 'object' && Object.hasOwn(values, name)
      ? (values as Record<string, unknown>)[name]
      : undefined;
  return typeof given === 'string' && given !== '' ? given : undefined;
}

/**
 * Every route needs `Authorization: Bearer <token>` unless marked @Public: 401 without a token we take (static,
 * an ID token of the OpenID provider, a ServiceAccount token for our audience: Authenticator), 403 when the
 * caller holds no role the route needs there (or, for an identity, none at all). Both answered as Kubernetes
 * `Status` objects. A browser session (the cookie of the sign-in with the provider) is taken as a bearer token
 * is, but a write made with it must come from this site: its Origin (when sent) must be this host, and it must
 * carry the session's CSRF token in X-CSRF-Token (which another site's page can neither read nor send), else 403.
 * With AUTHORIZATION=kubernetes the route is asked of the cluster's RBAC instead (routeAccess):
 * 403 when it says no, 503 when it cannot be asked.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(Authorization) private readonly authorization: Authorization,
    @Inject(RefusalRecorder) private readonly refusals: RefusalRecorder,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // socket.io connections are authenticated once, in their handshake (see LiveGateway).
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    const credential = credentialOf(request.headers);
    const session = sessionIdOf(credential);
    const write = session !== undefined && !READS.has(request.method);
    const crossSite = write ? crossSiteRefusal(request.headers) : undefined;
    if (crossSite) throw this.refuse(request, 403, 'cross-site', `Forbidden: ${crossSite}`);
    const authentication = await this.authenticator.authenticate(credential);
    if ('unavailable' in authentication)
      throw this.refuse(
        request,
        503,
        'session-storage-unavailable',
        `the session cannot be looked up now (${authentication.unavailable}); retry shortly`,
      );
    if ('refused' in authentication) {
      const reason = credential === undefined ? 'no-credential' : session ? 'bad-session' : 'bad-token';
      throw this.refuse(request, 401, reason, `Unauthorized: ${authentication.refused}`);
    }
    if (write && !this.sessions.csrfMatches(session, stringHeader(request.headers[CSRF_HEADER])))
      throw this.refuse(
        request,
        403,
        'csrf',
        'Forbidden: a write with the session cookie needs its CSRF token in X-CSRF-Token',
      );
    if ('forbidden' in authentication)
      throw this.refuse(request, 403, 'no-grant', authentication.forbidden, authentication.identity.username);
    const { caller } = authentication;
    (request as Request & { caller?: Caller }).caller = caller;
    const source = this.reflector.getAllAndOverride<NamespaceSource>(NAMESPACE_SCOPED, targets);
    const kubernetes = this.authorization.kubernetes;
    if (kubernetes) {
      const handlerAuthorizes =
        this.reflector.getAllAndOverride<boolean>(HANDLER_AUTHORIZES, targets) ?? false;
      return this.askCluster(kubernetes, caller, request, source, handlerAuthorizes);
    }
    const needed: Role =
      this.reflector.getAllAndOverride<Role>(REQUIRED_ROLE, targets) ??
      (READS.has(request.method) ? 'viewer' : 'editor');
    const namespace = source ? namespaceOf(request, source) : undefined;
    const refusal = accessRefusal(caller, needed, source ? { namespace } : undefined);
    if (refusal === 'role')
      throw this.refuse(
        request,
        403,
        'role',
        `${caller.name} (role ${caller.role}) may not ${request.method} ${request.path}: needs ${needed}`,
        caller.name,
      );
    if (refusal === 'namespace')
      throw this.refuse(
        request,
        403,
        'namespace',
        `${caller.name} is limited to the namespaces ${caller.namespaces!.join(', ')}: ` +
          (namespace ? `not ${namespace}` : 'name one of them'),
        caller.name,
      );
    return true;
  }

  private async askCluster(
    kubernetes: KubernetesAuthorizer,
    caller: Caller,
    request: Request,
    source: NamespaceSource | undefined,
    handlerAuthorizes: boolean,
  ): Promise<boolean> {
    const watch = param(request.query, 'watch');
    const access = routeAccess({
      method: request.method,
      source,
      namespace: source ? namespaceOf(request, source) : undefined,
      name: param(request.params, 'name'),
      subresource: param(request.params, 'subresource'),
      watch: watch === 'true' || watch === '1',
      handlerAuthorizes,
    });
    if (!access) return true;
    const refusal = await kubernetes.refusal(caller, access);
    if (refusal) {
      const reason = refusal.code === 403 ? 'rbac-denied' : 'rbac-unavailable';
      throw this.refuse(request, refusal.code, reason, refusal.message, caller.name);
    }
    return true;
  }

  /** The refusal as the Status answered (a 401 says how to authenticate), recorded in the audit. */
  private refuse(
    request: Request,
    code: Refusal['code'],
    reason: Refusal['reason'],
    message: string,
    subject?: string,
  ): StatusException {
    this.refusals.record({ door: 'rest', code, reason, subject, address: request.ip, message });
    if (code === 503)
      return new StatusException(503, message, { retryAfterSeconds: 1 }, { 'Retry-After': '1' });
    const challenge = code === 401 ? { 'WWW-Authenticate': 'Bearer realm="nginx-control-plane"' } : undefined;
    return new StatusException(code, message, undefined, challenge);
  }
}
