import { Controller, Get, HttpCode, Inject, Logger, Optional, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { safeNextPath } from '@ngx/nginx-api';
import { CONTROLPLANE_API_VERSION } from '../../http/controlplane-api.js';
import { StatusException } from '../../http/kube-status.js';
import { appConfig, type AppConfig } from '../../config/app-config.js';
import { Public } from '../auth.decorators.js';
import { Authenticator } from '../authenticator.js';
import { CSRF_HEADER } from '../bearer-auth.guard.js';
import { ProviderUnavailableError } from '../oidc/oidc-token-verifier.js';
import { REFUSAL_CODES, RefusalRecorder, type RefusalCode, type RefusalReason } from '../refusal-recorder.js';
import { OidcSignIn, SignInRefusedError } from './oidc-sign-in.js';
import { PendingSignIns } from './pending-sign-ins.js';
import { asBrowserPage } from './refusal-page.js';
import { crossSiteRefusal } from './request-origin.js';
import {
  cookieValue,
  credentialOf,
  SESSION_COOKIE,
  sessionIdOf,
  setCookie,
  SIGN_IN_COOKIE,
} from './session-cookies.js';
import { SessionStorageUnavailableError } from './session-records.js';
import { SessionStore } from './session-store.js';

export const AUTH_PATH = `/${CONTROLPLANE_API_VERSION}/auth`;
/** What a provider may add to its callback besides code and state (RFC 9207 `iss`, session management). */
const CALLBACK_PARAMETERS = new Set([
  'code',
  'state',
  'iss',
  'session_state',
  'scope',
  'error',
  'error_description',
  'error_uri',
]);
/** How long the sign-in binding cookie lives: as long as a pending sign-in. */
const SIGN_IN_COOKIE_SECONDS = 600;

/**
 * The UI's sign-in with the OpenID provider (authorization code with PKCE, OidcSignIn) and its browser session
 * (SessionStore, an HttpOnly SameSite=Lax cookie, Secure over TLS): sign-in, the provider's callback, the session
 * as the UI reads it (with its CSRF token), sign-out (here and, if the provider supports it, there). Every
 * refusal is a Status (400 a malformed request, 401 a sign-in that does not hold, 403 an identity the policy
 * grants nothing, 503 a provider or session storage that cannot be reached), nothing is kept for it, and it is
 * logged. Sessions and sign-ins under way live in the shared session storage, so any replica finishes a sign-in
 * another started, and a sign-out holds on all of them.
 */
@Public()
@Controller(`${CONTROLPLANE_API_VERSION}/auth`)
export class SessionController {
  private readonly logger = new Logger('SignIn');

  constructor(
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(PendingSignIns) private readonly pending: PendingSignIns,
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Inject(RefusalRecorder) private readonly refusals: RefusalRecorder,
    @Optional() @Inject(OidcSignIn) private readonly oidc?: OidcSignIn | null,
  ) {}

  /** How one may sign in here: with a token (always), and with the provider when one is configured. */
  @Get('providers')
  async providers() {
    const oidc = this.config.auth.oidc;
    if (!oidc || !this.oidc) return { tokens: true, oidc: null };
    const availability = await this.oidc.available();
    return {
      tokens: true,
      oidc: {
        issuer: oidc.issuerUrl,
        signInPath: `${AUTH_PATH}/sign-in`,
        available: availability.ok,
        ...(availability.ok ? {} : { problem: availability.problem }),
      },
    };
  }

  @Get('sign-in')
  signIn(@Req() request: Request, @Res() response: Response): Promise<void> {
    return asBrowserPage(request, response, () => this.startSignIn(request, response));
  }

  @Get('callback')
  callback(@Req() request: Request, @Res() response: Response): Promise<void> {
    return asBrowserPage(request, response, () => this.finishSignIn(request, response));
  }

  private async startSignIn(request: Request, response: Response): Promise<void> {
    const oidc = this.signInFlow();
    const next = this.nextPath(request);
    let started: Awaited<ReturnType<OidcSignIn['start']>>;
    try {
      started = await oidc.start(this.callbackUrl(request), next);
    } catch (error) {
      throw this.refused(request, error);
    }
    let browser: string;
    try {
      browser = await this.pending.add(started.state, started.pending);
    } catch (error) {
      throw this.refused(request, error);
    }
    response.setHeader(
      'Set-Cookie',
      setCookie(SIGN_IN_COOKIE, browser, {
        secure: this.secure(request),
        maxAgeSeconds: SIGN_IN_COOKIE_SECONDS,
      }),
    );
    response.setHeader('Cache-Control', 'no-store');
    response.redirect(302, started.url);
  }

  private async finishSignIn(request: Request, response: Response): Promise<void> {
    const oidc = this.signInFlow();
    const url = new URL(request.originalUrl, 'http://callback.invalid');
    const extra = [...url.searchParams.keys()].filter((key) => !CALLBACK_PARAMETERS.has(key));
    if (extra.length > 0)
      throw this.refused(
        request,
        new StatusException(400, `the callback takes no ${extra.join(', ')} parameter`),
        'bad-request',
      );
    const state = url.searchParams.get('state');
    if (!state)
      throw this.refused(request, new StatusException(400, 'the callback has no state'), 'bad-state');
    const browser =
      cookieValue(request.headers.cookie, SIGN_IN_COOKIE.secure) ??
      cookieValue(request.headers.cookie, SIGN_IN_COOKIE.plain);
    let pending: Awaited<ReturnType<PendingSignIns['take']>>;
    try {
      pending = await this.pending.take(state, browser);
    } catch (error) {
      throw this.refused(request, error);
    }
    if (pending === 'unknown')
      throw this.refused(
        request,
        new StatusException(401, 'Unauthorized: this sign-in is unknown, expired or already used'),
        'bad-state',
      );
    if (pending === 'other-browser')
      throw this.refused(
        request,
        new StatusException(401, 'Unauthorized: this sign-in was started in another browser'),
        'other-browser',
      );
    const providerError = url.searchParams.get('error');
    if (providerError)
      throw this.refused(
        request,
        new StatusException(
          401,
          `Unauthorized: the identity provider answered ${providerError}: ${url.searchParams.get('error_description') ?? ''}`.trim(),
        ),
        'provider-refused',
      );
    let confirmed: Awaited<ReturnType<OidcSignIn['finish']>>;
    try {
      confirmed = await oidc.finish(url, state, pending);
    } catch (error) {
      throw this.refused(request, error);
    }
    const authorization = this.authenticator.authorize(confirmed.identity);
    if ('forbidden' in authorization)
      throw this.refused(
        request,
        new StatusException(403, `Forbidden: ${authorization.forbidden}`),
        'no-grant',
        confirmed.identity.username,
      );
    let session: Awaited<ReturnType<SessionStore['create']>>;
    try {
      session = await this.sessions.create(confirmed);
    } catch (error) {
      throw this.refused(request, error);
    }
    const secure = this.secure(request);
    response.setHeader('Set-Cookie', [
      setCookie(SESSION_COOKIE, session.id, {
        secure,
        maxAgeSeconds: (session.expiresAt - Date.now()) / 1000,
      }),
      setCookie(SIGN_IN_COOKIE, '', { secure, maxAgeSeconds: 0 }),
    ]);
    response.setHeader('Cache-Control', 'no-store');
    this.logger.log(`${confirmed.identity.username} signed in with ${this.config.auth.oidc!.issuerUrl}`);
    response.redirect(303, pending.next);
  }

  /** The signed-in session as the UI reads it: who, until when, and the CSRF token its writes must carry. */
  @Get('session')
  async session(@Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const id = sessionIdOf(credentialOf(request.headers));
    const session = id ? await this.sessions.describe(id).catch(storageAway) : undefined;
    if (!session) throw new StatusException(401, 'Unauthorized: no signed-in session');
    response.setHeader('Cache-Control', 'no-store');
    const { identity, csrfToken, expiresAt } = session;
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'Session',
      username: identity.username,
      groups: identity.groups,
      email: identity.email ?? null,
      authenticatedBy: identity.authenticatedBy,
      expiresAt: new Date(expiresAt).toISOString(),
      csrfToken,
    };
  }

  /**
   * Ends the session (a write of this site only: same-site Origin and the CSRF token); answers where to send the
   * browser to end the sign-in at the provider too, when it supports RP-initiated logout.
   */
  @Post('sign-out')
  @HttpCode(200)
  async signOut(@Req() request: Request, @Res({ passthrough: true }) response: Response) {
    const id = sessionIdOf(credentialOf(request.headers));
    if (
      !id ||
      !(await this.sessions.describe(id).catch((error: unknown) => this.storageRefusal(request, error)))
    )
      throw this.refused(
        request,
        new StatusException(401, 'Unauthorized: no signed-in session'),
        'bad-session',
      );
    const crossSite = crossSiteRefusal(request.headers);
    if (crossSite)
      throw this.refused(request, new StatusException(403, `Forbidden: ${crossSite}`), 'cross-site');
    const csrf = request.headers[CSRF_HEADER];
    if (!this.sessions.csrfMatches(id, typeof csrf === 'string' ? csrf : undefined))
      throw this.refused(
        request,
        new StatusException(403, 'Forbidden: signing out needs the session CSRF token in X-CSRF-Token'),
        'csrf',
      );
    const tokens = await this.sessions.end(id).catch((error: unknown) => this.storageRefusal(request, error));
    response.setHeader(
      'Set-Cookie',
      setCookie(SESSION_COOKIE, '', { secure: this.secure(request), maxAgeSeconds: 0 }),
    );
    const providerSignOut =
      tokens && this.oidc
        ? await this.oidc.endSessionUrl(tokens.idToken, `${this.origin(request)}/sign-in`)
        : undefined;
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'SignedOut',
      providerSignOutUrl: providerSignOut ?? null,
    };
  }

  /** A session read or write the storage could not answer: the refusal (503) to throw, recorded. */
  private storageRefusal(request: Request, error: unknown): never {
    throw this.refused(request, error);
  }

  private signInFlow(): OidcSignIn {
    if (!this.oidc)
      throw new StatusException(404, 'sign-in with an identity provider is not configured (OIDC_ISSUER_URL)');
    return this.oidc;
  }

  /** The `next` parameter: a path on this site, or 400 for anything else (never a redirect elsewhere). */
  private nextPath(request: Request): string {
    const raw = request.query.next;
    if (raw === undefined) return '/';
    const origin = this.origin(request);
    const path = typeof raw === 'string' ? safeNextPath(raw, origin) : undefined;
    if (path === undefined || (path === '/' && raw !== '/'))
      throw this.refused(
        request,
        new StatusException(400, 'next must be a path on this site'),
        'bad-request',
      );
    return path;
  }

  private callbackUrl(request: Request): string {
    return this.config.auth.oidc?.redirectUrl ?? `${this.origin(request)}${AUTH_PATH}/callback`;
  }

  private origin(request: Request): string {
    return `${this.secure(request) ? 'https' : 'http'}://${request.headers.host}`;
  }

  private secure(request: Request): boolean {
    return request.secure;
  }

  /**
   * The refusal as a Status, logged (who tried what, never a token) and recorded in the audit's refusals under
   * `reason` (by default: the provider away, or its answer refused). A 500 is a failure, not a refusal: logged only.
   */
  private refused(
    request: Request,
    error: unknown,
    reason?: RefusalReason,
    subject?: string,
  ): StatusException {
    const status =
      error instanceof StatusException
        ? error
        : error instanceof SessionStorageUnavailableError
          ? storageUnavailable(error)
          : error instanceof ProviderUnavailableError
            ? new StatusException(503, `the identity provider cannot be reached: ${error.message}`)
            : error instanceof SignInRefusedError
              ? new StatusException(401, `Unauthorized: ${error.message}`)
              : new StatusException(500, `sign-in failed: ${(error as Error).message}`);
    this.logger.warn(
      `refused a sign-in from ${request.ip ?? 'unknown'} (${request.path}): ${status.message}`,
    );
    if (isRefusalCode(status.code))
      this.refusals.record({
        door: 'sign-in',
        code: status.code,
        reason:
          reason ??
          (error instanceof SessionStorageUnavailableError
            ? 'session-storage-unavailable'
            : status.code === 503
              ? 'provider-unavailable'
              : 'provider-refused'),
        subject,
        address: request.ip,
        message: status.message,
      });
    return status;
  }
}

/** The session storage (the audit database) could not be asked: 503, retry shortly; nobody is signed out. */
function storageUnavailable(error: SessionStorageUnavailableError): StatusException {
  return new StatusException(
    503,
    `the session storage cannot be reached: ${error.message}; retry shortly`,
    { retryAfterSeconds: 1 },
    { 'Retry-After': '1' },
  );
}

function storageAway(error: unknown): never {
  throw error instanceof SessionStorageUnavailableError ? storageUnavailable(error) : error;
}

function isRefusalCode(code: number): code is RefusalCode {
  return (REFUSAL_CODES as readonly number[]).includes(code);
}
