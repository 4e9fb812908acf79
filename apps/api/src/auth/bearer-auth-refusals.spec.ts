import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it, vi } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { NAMESPACE_SCOPED } from './auth.decorators.js';
import type { Authentication, Authenticator } from './authenticator.js';
import { Authorization } from './authorization.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import type { KubernetesAuthorizer } from './kubernetes/kubernetes-authorizer.js';
import type { Refusal, RefusalRecorder } from './refusal-recorder.js';
import type { SessionStore } from './session/session-store.js';

const viewer = { caller: { name: 'ada', role: 'viewer' as const } };
const limited = { caller: { name: 'lee', role: 'viewer' as const, namespaces: ['team-a'] } };

/** The guard with `authentication` as every credential's answer; what it records, and how it answered. */
async function guarded(
  request: { method?: string; headers?: Record<string, string>; query?: Record<string, string> },
  authentication: Authentication,
  options: { namespaced?: boolean; kubernetes?: Partial<KubernetesAuthorizer>; csrf?: boolean } = {},
): Promise<{ recorded: Refusal[]; answer: StatusException | true }> {
  const recorded: Refusal[] = [];
  const recorder: RefusalRecorder = { record: (refusal) => recorded.push(refusal) };
  const reflector = new Reflector();
  vi.spyOn(reflector, 'getAllAndOverride').mockImplementation((key) =>
    key === NAMESPACE_SCOPED && options.namespaced ? 'query' : undefined,
  );
  const authenticator = { authenticate: async () => authentication } as unknown as Authenticator;
  const sessions = { csrfMatches: () => options.csrf ?? false } as unknown as SessionStore;
  const authorization = new Authorization(options.kubernetes as KubernetesAuthorizer | undefined);
  const guard = new BearerAuthGuard(reflector, authenticator, sessions, authorization, recorder);
  const http = {
    method: 'GET',
    path: '/controlplane/v1/audit/refusals',
    ip: '10.1.2.3',
    params: {},
    query: {},
    headers: {},
    ...request,
  };
  const context = {
    getType: () => 'http',
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => http }),
  } as unknown as ExecutionContext;
  try {
    return { recorded, answer: (await guard.canActivate(context)) as true };
  } catch (error) {
    expect(error).toBeInstanceOf(StatusException);
    return { recorded, answer: error as StatusException };
  }
}

describe('BearerAuthGuard records each refusal', () => {
  it('a request without a credential: 401 no-credential, with the challenge', async () => {
    const { recorded, answer } = await guarded({}, { refused: 'a valid bearer token is required' });
    expect((answer as StatusException).code).toBe(401);
    expect((answer as StatusException).headers).toMatchObject({ 'WWW-Authenticate': expect.any(String) });
    expect(recorded).toEqual([
      {
        door: 'rest',
        code: 401,
        reason: 'no-credential',
        subject: undefined,
        address: '10.1.2.3',
        message: 'Unauthorized: a valid bearer token is required',
      },
    ]);
  });

  it('a token we do not take: 401 bad-token, the token nowhere in what is recorded', async () => {
    const { recorded } = await guarded(
      { headers: { authorization: 'Bearer secret-token-value' } },
      { refused: 'the token is not known' },
    );
    expect(recorded).toMatchObject([{ code: 401, reason: 'bad-token' }]);
    expect(JSON.stringify(recorded)).not.toContain('secret-token-value');
  });

  it('a session cookie naming no session: 401 bad-session', async () => {
    const { recorded } = await guarded(
      { headers: { cookie: 'ngx-session=abcdefghijklmnop0123' } },
      { refused: 'the session has expired' },
    );
    expect(recorded).toMatchObject([{ code: 401, reason: 'bad-session' }]);
  });

  it('a cookie write from another site: 403 cross-site; without its CSRF token: 403 csrf', async () => {
    const cross = await guarded(
      {
        method: 'POST',
        headers: { cookie: 'ngx-session=abcdefghijklmnop0123', host: 'cp', origin: 'https://evil.example' },
      },
      viewer,
    );
    expect(cross.recorded).toMatchObject([{ code: 403, reason: 'cross-site' }]);
    const csrf = await guarded(
      { method: 'POST', headers: { cookie: 'ngx-session=abcdefghijklmnop0123', host: 'cp' } },
      viewer,
    );
    expect(csrf.recorded).toMatchObject([{ code: 403, reason: 'csrf' }]);
  });

  it('an identity the policy grants nothing: 403 no-grant, naming it', async () => {
    const { recorded } = await guarded({ headers: { authorization: 'Bearer x' } }, {
      forbidden: 'mallory is authenticated but the access policy grants it nothing',
      identity: { username: 'mallory' },
    } as Authentication);
    expect(recorded).toMatchObject([{ code: 403, reason: 'no-grant', subject: 'mallory' }]);
  });

  it('our roles: a role short of the route, a caller limited to other namespaces', async () => {
    const role = await guarded({ method: 'DELETE', headers: { authorization: 'Bearer x' } }, viewer);
    expect(role.recorded).toMatchObject([{ code: 403, reason: 'role', subject: 'ada' }]);
    const namespace = await guarded({ headers: { authorization: 'Bearer x' } }, limited, {
      namespaced: true,
    });
    expect(namespace.recorded).toMatchObject([{ code: 403, reason: 'namespace', subject: 'lee' }]);
  });

  it('the cluster’s RBAC: a denial 403 rbac-denied, kube-apiserver away 503 rbac-unavailable', async () => {
    for (const [code, reason] of [
      [403, 'rbac-denied'],
      [503, 'rbac-unavailable'],
    ] as const) {
      const kubernetes = { refusal: async () => ({ code, message: 'no' }) };
      const { recorded, answer } = await guarded({ headers: { authorization: 'Bearer x' } }, viewer, {
        namespaced: true,
        kubernetes,
      });
      expect((answer as StatusException).code).toBe(code);
      expect(recorded).toMatchObject([{ code, reason, subject: 'ada' }]);
    }
  });

  it('records nothing for a request it lets through', async () => {
    const { recorded, answer } = await guarded({ headers: { authorization: 'Bearer x' } }, viewer);
    expect(answer).toBe(true);
    expect(recorded).toEqual([]);
  });
});
