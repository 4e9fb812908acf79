import { describe, expect, it } from 'vitest';
import { scaledValue } from './int-or-percent.js';
import { podTemplateOf, mountedConfig, mountedConfigFiles } from './pod-template.js';
import { revisionOf } from './template-revision.js';
import { validateNginx } from './validation.js';
import type { NginxSpec } from './types.js';

const nginx = (spec: Record<string, unknown>) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web' },
  spec: { replicas: 3, ...spec },
});
const fields = (spec: Record<string, unknown>) => validateNginx(nginx(spec)).map((e) => e.field);

describe('the rollout fields', () => {
  it('accepts the issue example in full', () => {
    expect(
      validateNginx(
        nginx({
          image: 'nginx:1.27',
          port: 80,
          config: "server { listen 80; location / { return 200 'ok'; } }",
          healthCheckPath: '/',
          resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          service: { type: 'ClusterIP', port: 80 },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
          minReadySeconds: 0,
          progressDeadlineSeconds: 600,
          revisionHistoryLimit: 10,
          paused: false,
          disruptionBudget: { minAvailable: 1 },
        }),
      ),
    ).toEqual([]);
  });

  it.each([
    [{ port: 0 }, 'spec.port'],
    [{ port: 65536 }, 'spec.port'],
    [{ strategy: { rollingUpdate: { maxSurge: '25' } } }, 'spec.strategy.rollingUpdate.maxSurge'],
    [
      { strategy: { rollingUpdate: { maxUnavailable: '101%' } } },
      'spec.strategy.rollingUpdate.maxUnavailable',
    ],
    [{ strategy: { rollingUpdate: { maxSurge: 1.5 } } }, 'spec.strategy.rollingUpdate.maxSurge'],
    [{ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } }, 'spec.strategy.rollingUpdate'],
    [{ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }, 'spec.strategy'],
    [{ strategy: { type: 'Shadow' } }, 'spec.strategy.type'],
    [
      { strategy: { type: 'BlueGreen', blueGreen: { activeService: 'web', previewService: 'web' } } },
      'spec.strategy.blueGreen',
    ],
    [{ strategy: { type: 'Canary', blueGreen: {} } }, 'spec.strategy'],
    [
      {
        strategy: {
          type: 'Canary',
          canary: { steps: [{ gate: { webhook: { url: 'javascript:alert(1)' } } }] },
        },
      },
      'spec.strategy.canary.steps[0].gate.webhook.url',
    ],
    [
      {
        strategy: {
          type: 'Canary',
          canary: {
            steps: [{ gate: { webhook: { url: 'https://x.test', headers: { 'bad header': 'v' } } } }],
          },
        },
      },
      'spec.strategy.canary.steps[0].gate.webhook.headers',
    ],
    [
      {
        strategy: {
          type: 'Canary',
          canary: { steps: [{ gate: { webhook: { url: 'https://x.test', timeoutSeconds: 61 } } }] },
        },
      },
      'spec.strategy.canary.steps[0].gate.webhook.timeoutSeconds',
    ],
    [
      { strategy: { type: 'Canary', canary: { steps: [{ gate: {} }] } } },
      'spec.strategy.canary.steps[0].gate',
    ],
    [
      { strategy: { type: 'BlueGreen', blueGreen: { previewReplicaCount: 0 } } },
      'spec.strategy.blueGreen.previewReplicaCount',
    ],
    [{ resources: { requests: { cpu: 'lots' } } }, 'spec.resources.requests.cpu'],
    [{ resources: { requests: { memory: '128Mi' }, limits: { memory: '64Mi' } } }, 'spec.resources'],
    [{ service: { nodePort: 30080 } }, 'spec.service'],
    [{ service: { type: 'NodePort', nodePort: 80 } }, 'spec.service.nodePort'],
    [{ disruptionBudget: {} }, 'spec.disruptionBudget'],
    [{ disruptionBudget: { minAvailable: 1, maxUnavailable: 1 } }, 'spec.disruptionBudget'],
    [{ minReadySeconds: 700 }, 'spec.progressDeadlineSeconds'],
    [{ healthCheckPath: 'healthz' }, 'spec.healthCheckPath'],
    [{ config: 'server { listen 80 }' }, 'spec.config'],
  ])('refuses %j at %s', (spec, field) => {
    expect(fields(spec)).toEqual([field]);
  });

  it('names the line of a config that is not valid nginx', () => {
    const [error] = validateNginx(nginx({ config: 'server {\n  listen 80;\n  return 200 "ok"\n}\n' }));
    expect(error).toMatchObject({ field: 'spec.config', reason: 'FieldValueInvalid' });
    expect(error!.message).toMatch(/line 4/);
  });

  it('refuses a config over 256 KiB of UTF-8', () => {
    const big = `# ${'é'.repeat(140 * 1024)}\n`;
    expect(validateNginx(nginx({ config: big }))).toEqual([
      expect.objectContaining({ field: 'spec.config', reason: 'FieldValueTooLong' }),
    ]);
  });

  it('checks only the config of a patch, whose other fields may relate to what it does not carry', () => {
    const patch = { spec: { config: 'server {', minReadySeconds: 900 } };
    expect(validateNginx(patch, { partial: true }).map((e) => e.field)).toEqual(['spec.config']);
  });
});

describe('scaledValue', () => {
  it("reads counts and percentages with a Deployment's rounding", () => {
    expect(scaledValue(2, 10, 'up')).toBe(2);
    expect(scaledValue('25%', 10, 'up')).toBe(3);
    expect(scaledValue('25%', 10, 'down')).toBe(2);
    expect(scaledValue('10%', 30, 'up')).toBe(3);
    expect(scaledValue('abc', 10, 'up')).toBeUndefined();
  });
});

describe('revisionOf', () => {
  const revision = (spec: Partial<NginxSpec>) => revisionOf(podTemplateOf({ replicas: 1, ...spec }));

  it('is the same for the same template, whatever else differs, and defaults count as given', () => {
    expect(revision({ image: 'nginx:latest', port: 80 })).toBe(revision({}));
    expect(revision({ paused: true, minReadySeconds: 5 })).toBe(revision({}));
    expect(revision({ resources: { requests: { cpu: '1' } } })).toBe(
      revisionOf(
        podTemplateOf({ replicas: 9, resources: { requests: { cpu: '1' } }, revisionHistoryLimit: 2 }),
      ),
    );
    expect(revision({})).toMatch(/^[0-9a-z]{14}$/);
  });

  it('changes with the image, port, config, probe or resources', () => {
    const all = [
      revision({}),
      revision({ image: 'nginx:1.27' }),
      revision({ port: 8080 }),
      revision({ config: 'server {}' }),
      revision({ healthCheckPath: '/' }),
      revision({ resources: { limits: { memory: '64Mi' } } }),
    ];
    expect(new Set(all).size).toBe(all.length);
  });

  it('mounts the default server on a port other than 80, and nothing on 80', () => {
    expect(mountedConfig(podTemplateOf({ replicas: 1 }))).toBeUndefined();
    expect(mountedConfig(podTemplateOf({ replicas: 1, port: 8080 }))).toContain('listen 8080;');
    expect(mountedConfig(podTemplateOf({ replicas: 1, port: 8080, config: 'x;' }))).toBe('x;');
  });
});

describe('the canary fields', () => {
  const analysis = [
    {
      name: 'error-rate',
      prometheus: { address: 'http://prometheus:9090', query: 'sum(rate(x{nginx="{{name}}"}[1m]))' },
      successCondition: 'result < 0.01',
      interval: '30s',
      count: 4,
      failureLimit: 1,
    },
  ];
  const canary = (steps: unknown[]) => ({
    type: 'Canary',
    canary: { steps, maxSurge: '25%', maxUnavailable: 0 },
  });

  it('accepts the issue example', () => {
    const steps = [
      { setWeight: 20 },
      { pause: { duration: '60s' } },
      { analysis: { templateName: 'error-rate' } },
      { setWeight: 50 },
      { pause: {} },
    ];
    expect(validateNginx(nginx({ strategy: canary(steps), analysis, rollbackOnFailure: true }))).toEqual([]);
  });

  it.each([
    [{ strategy: canary([{ setWeight: 20, pause: {} }]) }, 'spec.strategy.canary.steps[0]'],
    [{ strategy: canary([{}]) }, 'spec.strategy.canary.steps[0]'],
    [{ strategy: canary([{ setWeight: 101 }]) }, 'spec.strategy.canary.steps[0].setWeight'],
    [{ strategy: canary([{ pause: { duration: '1d' } }]) }, 'spec.strategy.canary.steps[0].pause.duration'],
    [
      { strategy: canary([{ analysis: { templateName: 'missing' } }]), analysis },
      'spec.strategy.canary.steps',
    ],
    [{ strategy: { type: 'RollingUpdate', canary: { steps: [] } } }, 'spec.strategy'],
    [{ strategy: { type: 'Canary', rollingUpdate: { maxSurge: 1 } } }, 'spec.strategy'],
    [
      { strategy: canary(Array.from({ length: 65 }, () => ({ setWeight: 1 }))) },
      'spec.strategy.canary.steps',
    ],
    [{ analysis: [...analysis, ...analysis] }, 'spec.analysis[1]'],
    [
      { analysis: [{ ...analysis[0], prometheus: { address: 'prometheus:9090', query: 'up' } }] },
      'spec.analysis[0].prometheus.address',
    ],
    [{ analysis: [{ ...analysis[0], count: 0 }] }, 'spec.analysis[0].count'],
    [{ analysis: [{ ...analysis[0], successCondition: 'result <' }] }, 'spec.analysis[0].successCondition'],
    [
      { analysis: [analysis[0], { ...analysis[0], name: 'b', failureCondition: 'errors > 1' }] },
      'spec.analysis[1].failureCondition',
    ],
  ])('refuses %j at %s', (spec, field) => {
    expect(fields(spec)).toContain(field);
  });

  it('says why a condition is refused, in a patch too', () => {
    const bad = [{ ...analysis[0], successCondition: '(result < 0.01' }];
    const expected = {
      field: 'spec.analysis[0].successCondition',
      reason: 'FieldValueInvalid',
      message:
        'Invalid value: "(result < 0.01": not a condition of result: expected ")", found end of condition',
    };
    expect(validateNginx(nginx({ analysis: bad }))).toEqual([expected]);
    expect(validateNginx({ spec: { analysis: bad } }, { partial: true })).toEqual([expected]);
  });
});

describe('spec.tls and spec.ingress', () => {
  const service = { port: 80 };
  const tls = { secretName: 'web-tls' };

  it('accepts the issue example, a wildcard host, a path and no class', () => {
    expect(
      fields({ service, tls, ingress: { className: 'nginx', host: 'web.example.com', tls: true } }),
    ).toEqual([]);
    expect(fields({ service, ingress: { host: '*.example.com', path: '/app' } })).toEqual([]);
  });

  it.each([
    [{ tls: { secretName: 'Web_TLS' } }, 'spec.tls.secretName'],
    [{ tls: { secretName: '' } }, 'spec.tls.secretName'],
    [{ tls: {} }, 'spec.tls.secretName'],
    [{ tls, port: 443 }, 'spec.port'],
    [{ service, ingress: {} }, 'spec.ingress.host'],
    [{ service, ingress: { host: 'Web.Example.com' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: '*.*.example.com' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: 'web.*.com' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: '10.0.0.1' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: 'a.example.com', className: 'Bad Class' } }, 'spec.ingress.className'],
    [{ service, ingress: { host: 'a.example.com', path: 'app' } }, 'spec.ingress.path'],
    [{ service, ingress: { host: 'a.example.com', tls: true } }, 'spec.ingress.tls'],
    [{ ingress: { host: 'a.example.com' } }, 'spec.ingress'],
  ])('refuses %j at %s', (spec, field) => {
    expect(fields(spec)).toEqual([field]);
  });

  it('says why, with the CRD rule’s message', () => {
    const [error] = validateNginx(nginx({ service, ingress: { host: 'a.example.com', tls: true } }));
    expect(error!.message).toBe(
      'Invalid value: ingress.tls needs spec.tls: the Ingress terminates TLS with its Secret',
    );
  });

  it('makes spec.tls part of the pod template; spec.ingress is not', () => {
    const plain = revisionOf(podTemplateOf({ replicas: 1 }));
    expect(revisionOf(podTemplateOf({ replicas: 1, tls }))).not.toBe(plain);
    expect(revisionOf(podTemplateOf({ replicas: 1, service, ingress: { host: 'a.example.com' } }))).toBe(
      plain,
    );
    expect(podTemplateOf({ replicas: 1, tls: { secretName: '' } }).tls).toBeUndefined();
  });

  it('mounts the TLS wrapper beside default.conf, with the default server when spec.config is unset', () => {
    const files = mountedConfigFiles(podTemplateOf({ replicas: 1, tls }))!;
    expect(Object.keys(files)).toEqual(['default.conf', 'tls.conf']);
    expect(files['default.conf']).toContain('listen 80;');
    expect(files['tls.conf']).toContain('proxy_pass http://127.0.0.1:80;');
    expect(mountedConfigFiles(podTemplateOf({ replicas: 1 }))).toBeUndefined();
  });
});
