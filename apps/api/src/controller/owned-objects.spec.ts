import type { V1ConfigMap, V1ControllerRevision, V1EndpointSlice, V1Pod } from '@kubernetes/client-node';
import { LABEL_REVISION, podTemplateOf, revisionOf, type Nginx, type NginxSpec } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import {
  controllerRevisionFor,
  disruptionBudgetFor,
  disruptionBudgetStatus,
  ingressFor,
  ingressStatus,
  planHistory,
  serviceFor,
  serviceStatus,
} from './owned-objects.js';
import { configMapFor } from './pod-builder.js';

const nginx = (spec: Partial<NginxSpec> = {}): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web', generation: 1 },
  spec: { replicas: 2, ...spec },
});

const revisionOfSpec = (spec: Partial<NginxSpec>) => revisionOf(podTemplateOf({ replicas: 1, ...spec }));

/** The ControllerRevision of `spec`'s template with number `n`. */
function history(spec: Partial<NginxSpec>, n: number): V1ControllerRevision {
  const owner = nginx(spec);
  return controllerRevisionFor(owner, podTemplateOf(owner.spec), revisionOfSpec(spec), n);
}

const pod = (revision: string, configMap?: string): V1Pod => ({
  metadata: { name: `web-${revision}`, labels: { [LABEL_REVISION]: revision } },
  spec: {
    containers: [],
    volumes: configMap ? [{ name: 'nginx-config', configMap: { name: configMap } }] : [],
  },
  status: { phase: 'Running' },
});

const plan = (
  spec: Partial<NginxSpec>,
  revisions: V1ControllerRevision[],
  extra: { pods?: V1Pod[]; configMaps?: V1ConfigMap[] } = {},
) => {
  const owner = nginx(spec);
  const template = podTemplateOf(owner.spec);
  return planHistory({
    nginx: owner,
    template,
    updateRevision: revisionOf(template),
    revisions,
    configMaps: extra.configMaps ?? [],
    pods: extra.pods ?? [],
  });
};

describe('planHistory', () => {
  it('records a new revision as the next number, once', () => {
    const first = plan({ image: 'nginx:1' }, []);
    expect(first.create).toMatchObject({
      kind: 'ControllerRevision',
      revision: 1,
      data: { template: { image: 'nginx:1' } },
    });
    expect(first.create!.metadata!.labels![LABEL_REVISION]).toBe(revisionOfSpec({ image: 'nginx:1' }));
    const second = plan({ image: 'nginx:2' }, [history({ image: 'nginx:1' }, 1)]);
    expect(second.create?.revision).toBe(2);
    expect(
      plan({ image: 'nginx:2' }, [history({ image: 'nginx:1' }, 1), history({ image: 'nginx:2' }, 2)]),
    ).toEqual({
      prune: [],
      pruneConfigMaps: [],
    });
  });

  it('renumbers an old revision rolled back to as the newest, as a Deployment does', () => {
    const result = plan({ image: 'nginx:1' }, [
      history({ image: 'nginx:1' }, 1),
      history({ image: 'nginx:2' }, 2),
    ]);
    expect(result.create).toBeUndefined();
    expect(result.renumber?.number).toBe(3);
  });

  it('does not record a template that has not started rolling while paused', () => {
    expect(
      plan({ image: 'nginx:2', paused: true }, [history({ image: 'nginx:1' }, 1)]).create,
    ).toBeUndefined();
    const started = plan({ image: 'nginx:2', paused: true }, [history({ image: 'nginx:1' }, 1)], {
      pods: [pod(revisionOfSpec({ image: 'nginx:2' }))],
    });
    expect(started.create?.revision).toBe(2);
  });

  it('prunes the oldest beyond revisionHistoryLimit, never one whose pods still run', () => {
    const revisions = [1, 2, 3, 4].map((n) => history({ image: `nginx:${n}` }, n));
    const result = plan({ image: 'nginx:4', revisionHistoryLimit: 1 }, revisions, {
      pods: [pod(revisionOfSpec({ image: 'nginx:1' }))],
    });
    expect(result.prune.map((r) => r.revision)).toEqual([2]);
    expect(
      plan({ image: 'nginx:4', revisionHistoryLimit: 0 }, revisions).prune.map((r) => r.revision),
    ).toEqual([1, 2, 3]);
  });

  it('ignores revisions another Nginx of the same name controls', () => {
    const stranger = history({ image: 'nginx:1' }, 7);
    stranger.metadata!.ownerReferences![0]!.uid = 'someone-else';
    expect(plan({ image: 'nginx:1' }, [stranger]).create?.revision).toBe(1);
  });

  it('deletes a ConfigMap once no kept revision and no pod uses it', () => {
    const configs = ['a', 'b', 'c'].map((text) => `server { return 200 '${text}'; }`);
    const maps = configs.map((config) =>
      configMapFor(nginx({ config }), podTemplateOf({ replicas: 1, config }))!,
    );
    const revisions = configs.map((config, i) => history({ config }, i + 1));
    // Keep one old revision (b); a, pruned, still runs in a pod; c is the spec's.
    const kept = plan({ config: configs[2], revisionHistoryLimit: 0 }, revisions, {
      configMaps: maps,
      pods: [pod(revisionOfSpec({ config: configs[0] }), maps[0]!.metadata!.name)],
    });
    expect(kept.prune.map((r) => r.revision)).toEqual([2]);
    expect(kept.pruneConfigMaps.map((c) => c.metadata!.name)).toEqual([maps[1]!.metadata!.name]);
  });
});

describe('the Service', () => {
  it('selects every revision and forwards the service port to spec.port', () => {
    const service = serviceFor(
      nginx({ port: 8080, service: { type: 'NodePort', port: 80, nodePort: 30080 } }),
    )!;
    expect(service.metadata).toMatchObject({
      name: 'web',
      ownerReferences: [{ uid: 'u-web', controller: true }],
    });
    expect(service.spec).toEqual({
      type: 'NodePort',
      selector: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' },
      ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }],
    });
    expect(serviceFor(nginx())).toBeUndefined();
  });

  it('adds an https port 443 with spec.tls', () => {
    const withTls = serviceFor(nginx({ service: { type: 'NodePort' }, tls: { secretName: 'web-tls' } }))!;
    expect(withTls.spec!.ports).toEqual([
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 80 },
      { name: 'https', protocol: 'TCP', port: 443, targetPort: 443 },
    ]);
  });

  it('counts the ready addresses of its EndpointSlices', () => {
    const service = {
      ...serviceFor(nginx({ service: {} }))!,
      spec: { ...serviceFor(nginx({ service: {} }))!.spec, clusterIP: '10.0.0.9' },
    };
    const slice = (ready: (boolean | undefined)[], name = 'web'): V1EndpointSlice => ({
      addressType: 'IPv4',
      metadata: { labels: { 'kubernetes.io/service-name': name } },
      endpoints: ready.map((r, i) => ({
        addresses: [`10.1.0.${i}`],
        conditions: r === undefined ? {} : { ready: r },
      })),
    });
    expect(
      serviceStatus(service, [slice([true, false, undefined]), slice([true]), slice([true], 'other')]),
    ).toEqual({
      name: 'web',
      clusterIP: '10.0.0.9',
      readyEndpoints: 3,
    });
    expect(serviceStatus(undefined, [])).toBeUndefined();
  });
});

describe('the PodDisruptionBudget', () => {
  it('holds exactly the one bound the spec names, over every revision', () => {
    expect(disruptionBudgetFor(nginx({ disruptionBudget: { minAvailable: 1 } }))?.spec).toEqual({
      selector: { matchLabels: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' } },
      minAvailable: 1,
    });
    expect(disruptionBudgetFor(nginx({ disruptionBudget: { maxUnavailable: '25%' } }))?.spec).toEqual({
      selector: { matchLabels: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' } },
      maxUnavailable: '25%',
    });
  });

  it("reports kube's counts once the disruption controller has computed them, only the name before", () => {
    const budget = disruptionBudgetFor(nginx({ disruptionBudget: { minAvailable: 1 } }))!;
    expect(disruptionBudgetStatus(undefined)).toBeUndefined();
    expect(disruptionBudgetStatus(budget)).toEqual({ name: 'web' });
    const counted = {
      ...budget,
      status: {
        observedGeneration: 1,
        disruptionsAllowed: 2,
        currentHealthy: 3,
        desiredHealthy: 1,
        expectedPods: 3,
      },
    };
    expect(disruptionBudgetStatus(counted)).toEqual({
      name: 'web',
      disruptionsAllowed: 2,
      currentHealthy: 3,
      desiredHealthy: 1,
    });
  });
});

describe('the owned Ingress', () => {
  const spec: Partial<NginxSpec> = {
    service: { port: 8080 },
    tls: { secretName: 'web-tls' },
    ingress: { className: 'nginx', host: 'web.example.com', tls: true },
  };

  it('routes the host, path / (Prefix), to the owned Service port, with TLS from spec.tls', () => {
    const ingress = ingressFor(nginx(spec))!;
    expect(ingress.metadata).toMatchObject({
      name: 'web',
      namespace: 'default',
      ownerReferences: [expect.objectContaining({ uid: 'u-web', controller: true })],
    });
    expect(ingress.spec).toEqual({
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'web', port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['web.example.com'], secretName: 'web-tls' }],
    });
  });

  it('has no class or TLS unless asked, and is none without spec.ingress or spec.service', () => {
    const ingress = ingressFor(nginx({ service: {}, ingress: { host: '*.example.com', path: '/app' } }))!;
    expect(ingress.spec!.ingressClassName).toBeUndefined();
    expect(ingress.spec!.tls).toBeUndefined();
    expect(ingress.spec!.rules![0]!.http!.paths[0]!.path).toBe('/app');
    expect(ingress.spec!.rules![0]!.http!.paths[0]!.backend.service!.port!.number).toBe(80);
    expect(ingressFor(nginx({ service: {} }))).toBeUndefined();
    expect(ingressFor(nginx({ ingress: { host: 'a.example.com' } }))).toBeUndefined();
  });

  it('reports its name and published addresses', () => {
    const ingress = ingressFor(nginx(spec))!;
    expect(ingressStatus(ingress)).toEqual({ name: 'web' });
    expect(
      ingressStatus({
        ...ingress,
        status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }, { hostname: 'lb.example.com' }] } },
      }),
    ).toEqual({ name: 'web', addresses: ['10.0.0.1', 'lb.example.com'] });
    expect(ingressStatus(undefined)).toBeUndefined();
  });
});
