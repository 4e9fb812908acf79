import { Authenticator } from '../auth/authenticator.js';
import { Authorization } from '../auth/authorization.js';
import { AccessDecisions } from '../auth/kubernetes/access-decisions.js';
import { KubernetesAuthorizer } from '../auth/kubernetes/kubernetes-authorizer.js';
import { PolicySource } from '../auth/policy-source.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeRequest } from '@ngx/kube-runtime';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { RequestBudget } from '../auth/request-budget.js';
import { TokenStore } from '../auth/token-store.js';
import { StatusException } from '../http/kube-status.js';
import type { ApiServerRelay } from './api-server-relay.js';
import { RelayedReadLane } from './relayed-read-lane.js';

const TOKENS = {
  viewer: 'viewer-token-0123456789abcdef',
  limited: 'limited-token-0123456789abcdef',
};

/** A lane whose relay records what it was asked (or fails as told), with a budget of `perWindow` requests. */
function lane(perWindow: number, fail?: Error, authorization = new Authorization()) {
  const relayed: KubeRequest[] = [];
  const relay = {
    pipe: (req: KubeRequest, res: ServerResponse) => {
      relayed.push(req);
      if (fail) return Promise.reject(fail);
      res.writeHead(200, {}).end('{}');
      return Promise.resolve();
    },
  } as unknown as ApiServerRelay;
  const tokens = new TokenStore([
    { name: 'viewer', role: 'viewer', token: TOKENS.viewer },
    { name: 'limited', role: 'viewer', token: TOKENS.limited, namespaces: ['team-a'] },
  ]);
  const config = {
    auth: { rateLimitPerSecond: perWindow / 10, anonymousRateLimitPerSecond: 1 },
  } as AppConfig;
  const budget = new RequestBudget(config);
  return {
    lane: new RelayedReadLane(
      new Authenticator(tokens, new PolicySource(undefined), {
        rbac: authorization.kubernetes !== undefined,
      }),
      budget,
      relay,
      authorization,
    ),
    relayed,
    budget,
  };
}

function request(url: string, token?: string) {
  const headers = token ? { authorization: `Bearer ${token}`, accept: 'application/json' } : {};
  return { method: 'GET', url, headers } as unknown as IncomingMessage;
}

function response() {
  const written: { code?: number; headers?: Record<string, unknown>; body?: string } = {};
  const res = {
    headersSent: false,
    writeHead(code: number, headers: Record<string, unknown>) {
      Object.assign(written, { code, headers });
      return res;
    },
    end(body?: string) {
      written.body = body;
      return res;
    },
  };
  return { res: res as unknown as ServerResponse, written };
}

const ONE = '/apis/mycompany.com/v1/namespaces/team-a/nginxes/web';
const OTHER = '/apis/mycompany.com/v1/namespaces/team-b/nginxes';

describe('RelayedReadLane', () => {
  it('relays a reader’s plain GET, spending one request of its budget', () => {
    const { lane: handler, relayed, budget } = lane(3);
    for (let i = 0; i < 3; i++)
      expect(handler.handle(request(ONE, TOKENS.viewer), response().res)).toBe(true);
    expect(relayed).toEqual(
      Array(3).fill({
        path: '/apis/mycompany.com/v1/namespaces/team-a/nginxes/web',
        accept: 'application/json',
      }),
    );
    // The fourth is past the budget: declined, for the rate-limit guard to answer 429.
    expect(handler.handle(request(ONE, TOKENS.viewer), response().res)).toBe(false);
    expect(budget.take({ token: 'viewer' }).allowed).toBe(false);
  });

  it('declines, spending nothing, what the guards refuse: no token, an unknown one, a namespace not allowed', () => {
    const { lane: handler, relayed, budget } = lane(1);
    expect(handler.handle(request(ONE), response().res)).toBe(false);
    expect(handler.handle(request(ONE, 'unknown-token-0123456789abcdef'), response().res)).toBe(false);
    expect(handler.handle(request(OTHER, TOKENS.limited), response().res)).toBe(false);
    expect(handler.handle(request(`${ONE}?resourceVersion=0`, TOKENS.limited), response().res)).toBe(false);
    expect(relayed).toEqual([]);
    expect(budget.take({ token: 'limited' }).allowed).toBe(true); // its one request is still there
  });

  it('answers a failed relay with the Status the exception filter gives', async () => {
    const { lane: handler } = lane(
      5,
      new StatusException(503, 'the Kubernetes API server is unavailable: down'),
    );
    const { res, written } = response();
    expect(handler.handle(request(ONE, TOKENS.viewer), res)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.code).toBe(503);
    expect(written.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8' });
    expect(JSON.parse(written.body!)).toMatchObject({
      kind: 'Status',
      code: 503,
      message: 'the Kubernetes API server is unavailable: down',
    });
  });

  it('cuts a response it cannot answer on, rather than leave an unhandled rejection', async () => {
    const { lane: handler } = lane(
      5,
      new StatusException(503, 'the Kubernetes API server is unavailable: down'),
    );
    let destroyed = false;
    const res = {
      headersSent: false,
      writeHead() {
        throw new Error('write after end');
      },
      destroy() {
        destroyed = true;
      },
    } as unknown as ServerResponse;
    expect(handler.handle(request(ONE, TOKENS.viewer), res)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(destroyed).toBe(true);
  });
});

describe('RelayedReadLane with the cluster’s RBAC deciding', () => {
  it('takes a read only on a kept answer that allows exactly it; anything else is left to the guard', async () => {
    const decisions = new AccessDecisions(
      async (_, access) => ({ allowed: access.namespace === 'team-a', reason: '' }),
      { ttlMs: 10_000 },
    );
    const { lane: handler, relayed } = lane(
      10,
      undefined,
      new Authorization(new KubernetesAuthorizer(decisions)),
    );
    const subject = { user: 'nginx-control-plane:token:viewer', groups: ['system:authenticated'] };
    expect(handler.handle(request(ONE, TOKENS.viewer), response().res)).toBe(false); // nothing kept yet
    await decisions.answer(subject, { verb: 'get', namespace: 'team-a', name: 'web' });
    await decisions.answer(subject, { verb: 'list', namespace: 'team-b' });
    expect(handler.handle(request(ONE, TOKENS.viewer), response().res)).toBe(true);
    expect(handler.handle(request(OTHER, TOKENS.viewer), response().res)).toBe(false); // kept, but a denial
    expect(relayed).toHaveLength(1);
  });
});
