// Spec pieces for tests that send canary strategies and analyses (issue 34), good or bad.

/** A valid spec.analysis entry: bad-input tests change one field of it. */
export const ANALYSIS_TEMPLATE = {
  name: 'error-rate',
  prometheus: { address: 'http://prometheus:9090', query: 'up' },
  successCondition: 'result < 0.01',
};

/** spec.strategy of type Canary with these steps (and any other spec.strategy.canary fields). */
export const canaryStrategy = (steps: unknown, more: Record<string, unknown> = {}) => ({
  strategy: { type: 'Canary', canary: { steps, ...more } },
});

/** spec.strategy.canary.trafficRouting naming the HTTPRoute `web`. */
export const GATEWAY_ROUTING = { gatewayAPI: { httpRoute: 'web' } };

/** A valid setHeaderRoute step's body: bad-input tests change one part of it. */
export const HEADER_ROUTE = {
  name: 'beta',
  match: [{ headerName: 'x-beta', headerValue: { exact: 'yes' } }],
};

/** Issue 46's canary fields, each bad in one way, with the field a 422 must name. */
export const ISSUE_46_BAD_SPECS: [what: string, spec: Record<string, unknown>, field: string][] = [
  [
    'trafficRouting with no route',
    canaryStrategy([{ setWeight: 20 }], { trafficRouting: { gatewayAPI: {} } }),
    'spec.strategy.canary.trafficRouting.gatewayAPI.httpRoute',
  ],
  [
    'trafficRouting with no provider',
    canaryStrategy([{ setWeight: 20 }], { trafficRouting: {} }),
    'spec.strategy.canary.trafficRouting.gatewayAPI',
  ],
  [
    'setCanaryScale weight 120',
    canaryStrategy([{ setCanaryScale: { weight: 120 } }], { trafficRouting: GATEWAY_ROUTING }),
    'spec.strategy.canary.steps[0].setCanaryScale.weight',
  ],
  [
    'setHeaderRoute with no match',
    canaryStrategy([{ setHeaderRoute: { name: 'beta', match: [] } }], { trafficRouting: GATEWAY_ROUTING }),
    'spec.strategy.canary.steps[0].setHeaderRoute.match',
  ],
  [
    'a header value both exact and prefix',
    canaryStrategy(
      [
        {
          setHeaderRoute: {
            name: 'beta',
            match: [{ headerName: 'x-beta', headerValue: { exact: 'a', prefix: 'b' } }],
          },
        },
      ],
      { trafficRouting: GATEWAY_ROUTING },
    ),
    'spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue',
  ],
  [
    'setHeaderRoute without trafficRouting',
    canaryStrategy([{ setHeaderRoute: HEADER_ROUTE }]),
    'spec.strategy.canary',
  ],
  [
    'the same stable and canary Service',
    canaryStrategy([{ setWeight: 20 }], {
      trafficRouting: GATEWAY_ROUTING,
      stableService: 'web',
      canaryService: 'web',
    }),
    'spec.strategy.canary',
  ],
  [
    'blue-green with the same active and preview Service',
    {
      replicas: 2,
      strategy: { type: 'BlueGreen', blueGreen: { activeService: 'web', previewService: 'web' } },
    },
    'spec.strategy.blueGreen',
  ],
  [
    'a gate URL that is not http(s)',
    canaryStrategy([{ setWeight: 20 }, { gate: { webhook: { url: 'file:///etc/passwd' } } }]),
    'spec.strategy.canary.steps[1].gate.webhook.url',
  ],
  [
    'a gate both webhook and manual',
    canaryStrategy([{ gate: { webhook: { url: 'https://smoke.test/run' }, manual: {} } }]),
    'spec.strategy.canary.steps[0].gate',
  ],
  [
    'a blue-green gate URL that is not http(s)',
    {
      replicas: 2,
      strategy: {
        type: 'BlueGreen',
        blueGreen: { prePromotionGate: { webhook: { url: 'ftp://smoke.test/run' } } },
      },
    },
    'spec.strategy.blueGreen.prePromotionGate.webhook.url',
  ],
  [
    'blue-green scaleDownDelaySeconds -1',
    { replicas: 2, strategy: { type: 'BlueGreen', blueGreen: { scaleDownDelaySeconds: -1 } } },
    'spec.strategy.blueGreen.scaleDownDelaySeconds',
  ],
];

/** A header route whose regex does not compile: only our API (and its admission webhook) can say so. */
export const UNCOMPILABLE_REGEX = canaryStrategy(
  [{ setHeaderRoute: { name: 'beta', match: [{ headerName: 'x-beta', headerValue: { regex: '(beta' } }] } }],
  { trafficRouting: GATEWAY_ROUTING },
);
