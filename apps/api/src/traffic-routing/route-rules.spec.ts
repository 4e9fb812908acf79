import { describe, expect, it } from 'vitest';
import type { RouteRule } from './http-route.js';
import { headerMatch, routeRules, routeStatus, routeWeight, type RouteTarget } from './route-rules.js';

const target = (over: Partial<RouteTarget> = {}): RouteTarget => ({
  serviceNamespace: 'shop',
  routeNamespace: 'shop',
  stableService: 'web-stable',
  canaryService: 'web-canary',
  weight: 20,
  ...over,
});

const stableRule = (over: Partial<RouteRule> = {}): RouteRule => ({
  matches: [{ path: { type: 'PathPrefix', value: '/' } }],
  backendRefs: [{ name: 'web-stable', port: 80 }],
  ...over,
});

describe('routeRules', () => {
  it('weighs the stable backendRef and adds the canary beside it, same port', () => {
    expect(routeRules([stableRule()], target())).toEqual([
      stableRule({
        backendRefs: [
          { name: 'web-stable', port: 80, weight: 80 },
          { name: 'web-canary', port: 80, weight: 20 },
        ],
      }),
    ]);
  });

  it('moves an existing canary backendRef to the new weight, keeping other backends and rules as read', () => {
    const other: RouteRule = {
      name: 'api',
      backendRefs: [{ name: 'api', port: 8080 }],
      timeouts: { request: '5s' },
    };
    const rules = [
      stableRule({
        filters: [{ type: 'RequestHeaderModifier' }],
        backendRefs: [
          { name: 'web-stable', port: 80, weight: 50 },
          { name: 'web-canary', port: 80, weight: 50 },
          { name: 'mirror', port: 80, weight: 1 },
        ],
      }),
      other,
    ];
    expect(routeRules(rules, target({ weight: 100 }))).toEqual([
      stableRule({
        filters: [{ type: 'RequestHeaderModifier' }],
        backendRefs: [
          { name: 'web-stable', port: 80, weight: 0 },
          { name: 'web-canary', port: 80, weight: 100 },
          { name: 'mirror', port: 80, weight: 1 },
        ],
      }),
      other,
    ]);
  });

  it('leaves rules alone that refer to a namesake elsewhere (another namespace, another kind)', () => {
    const rules: RouteRule[] = [
      { backendRefs: [{ name: 'web-stable', namespace: 'other' }] },
      { backendRefs: [{ name: 'web-stable', kind: 'ServiceImport', group: 'multicluster.x-k8s.io' }] },
    ];
    expect(routeRules(rules, target())).toEqual(rules);
  });

  it('resolves a backendRef without a namespace against the route’s', () => {
    const rules: RouteRule[] = [{ backendRefs: [{ name: 'web-stable', namespace: 'shop', port: 80 }] }];
    expect(routeRules(rules, target({ routeNamespace: 'edge' }))[0]!.backendRefs).toEqual([
      { name: 'web-stable', namespace: 'shop', port: 80, weight: 80 },
      { name: 'web-canary', namespace: 'shop', port: 80, weight: 20 },
    ]);
    expect(routeRules([stableRule()], target({ routeNamespace: 'edge' }))).toEqual([stableRule()]);
  });

  it('adds a header route after each stable rule, requiring the headers on each of its matches; removes it after', () => {
    const headerRoute = {
      name: 'beta',
      match: [
        { headerName: 'X-Beta', headerValue: { exact: 'yes' } },
        { headerName: 'x-version', headerValue: { prefix: 'v2.' } },
      ],
    };
    const rules = [
      stableRule({
        matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x-beta', value: 'old' }] }],
      }),
      stableRule({ matches: undefined, backendRefs: [{ name: 'web-stable', port: 8443 }] }),
    ];
    const withRoute = routeRules(rules, target({ headerRoute }));
    expect(withRoute.map((rule) => rule.name)).toEqual([undefined, 'beta', undefined, 'beta-2']);
    expect(withRoute[1]).toEqual({
      name: 'beta',
      matches: [
        {
          path: { type: 'PathPrefix', value: '/' },
          headers: [
            { type: 'Exact', name: 'X-Beta', value: 'yes' },
            { type: 'RegularExpression', name: 'x-version', value: '^v2\\..*' },
          ],
        },
      ],
      backendRefs: [{ name: 'web-canary', port: 80, weight: 1 }],
    });
    expect(withRoute[3]!.matches).toEqual([{ headers: withRoute[1]!.matches![0]!.headers }]);
    expect(withRoute[3]!.backendRefs).toEqual([{ name: 'web-canary', port: 8443, weight: 1 }]);
    // Written again with the route still in force: the same rules (no duplicate); without it: gone.
    expect(routeRules(withRoute, target({ headerRoute }))).toEqual(withRoute);
    expect(routeRules(withRoute, target({ weight: 0 })).map((rule) => rule.name)).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe('headerMatch', () => {
  it('says regex as RegularExpression and a prefix as an anchored, escaped one', () => {
    expect(headerMatch({ headerName: 'h', headerValue: { regex: 'a|b' } })).toEqual({
      type: 'RegularExpression',
      name: 'h',
      value: 'a|b',
    });
    expect(headerMatch({ headerName: 'h', headerValue: { prefix: 'a(1)*' } }).value).toBe('^a\\(1\\)\\*.*');
  });
});

describe('routeWeight', () => {
  it('reads the canary weight of the first stable rule: 0 without a canary ref, undefined without a stable rule', () => {
    const rules = routeRules([stableRule()], target({ weight: 35 }));
    expect(routeWeight(rules, target())).toBe(35);
    expect(routeWeight([stableRule()], target())).toBe(0);
    expect(routeWeight([{ backendRefs: [{ name: 'api' }] }], target())).toBeUndefined();
  });
});

describe('routeStatus', () => {
  const route = (
    parents: { conditions?: { type: string; status: 'True' | 'False' | 'Unknown'; message?: string }[] }[],
  ) => ({
    metadata: { name: 'web', namespace: 'shop' },
    status: { parents },
  });

  it('is Unknown without parents, True when every parent says so, False with the message when one refuses', () => {
    expect(routeStatus(route([]))).toEqual({
      name: 'web',
      namespace: 'shop',
      accepted: 'Unknown',
      resolvedRefs: 'Unknown',
    });
    const ok = [
      { type: 'Accepted', status: 'True' as const },
      { type: 'ResolvedRefs', status: 'True' as const },
    ];
    expect(routeStatus(route([{ conditions: ok }, { conditions: ok }]))).toMatchObject({
      accepted: 'True',
      resolvedRefs: 'True',
    });
    const refused = [
      { type: 'Accepted', status: 'True' as const },
      { type: 'ResolvedRefs', status: 'False' as const, message: 'backendRef web-canary not permitted' },
    ];
    expect(routeStatus(route([{ conditions: ok }, { conditions: refused }]))).toEqual({
      name: 'web',
      namespace: 'shop',
      accepted: 'True',
      resolvedRefs: 'False',
      message: 'backendRef web-canary not permitted',
    });
  });
});
