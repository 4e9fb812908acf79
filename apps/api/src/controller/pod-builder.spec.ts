import {
  TEMPLATE_FIELDS,
  podTemplateOf,
  revisionOf,
  shortHash,
  templateFields,
  type Nginx,
} from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { configMapFor, defaultTopologySpread, podFor, podLike } from './pod-builder.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec: { replicas: 1 },
};

describe('podFor', () => {
  it('runs every template field: each one set changes the pod it builds', () => {
    const plain = podTemplateOf(nginx.spec);
    const podOf = (template = plain) => {
      const pod = podFor(nginx, template, revisionOf(plain));
      return { annotations: pod.metadata?.annotations, spec: pod.spec };
    };
    for (const name of TEMPLATE_FIELDS) {
      const template = podTemplateOf({ ...nginx.spec, [name]: templateFields[name].example });
      expect(podOf(template), name).not.toEqual(podOf());
    }
  });
});

describe('podFor and spec.restartedAt', () => {
  it('annotates each pod with kubectl.kubernetes.io/restartedAt, kept by a paused copy', () => {
    const template = podTemplateOf({ ...nginx.spec, restartedAt: '2026-11-28T10:00:00Z' });
    const pod = podFor(nginx, template, revisionOf(template));
    expect(pod.metadata?.annotations).toEqual({
      'kubectl.kubernetes.io/restartedAt': '2026-11-28T10:00:00Z',
    });
    expect(podLike(nginx, pod).metadata?.annotations).toEqual(pod.metadata?.annotations);
    expect(podFor(nginx, podTemplateOf(nginx.spec), 'rev').metadata).not.toHaveProperty('annotations');
  });
});

describe('podFor and scheduling', () => {
  const podSpec = (spec: Partial<Nginx['spec']>) =>
    podFor(nginx, podTemplateOf({ ...nginx.spec, ...spec }), 'rev').spec!;

  it('copies nodeSelector, tolerations, affinity and spread constraints into the pod as written', () => {
    const fields = {
      nodeSelector: templateFields.nodeSelector.example,
      tolerations: templateFields.tolerations.example,
      affinity: templateFields.affinity.example,
      topologySpreadConstraints: templateFields.topologySpreadConstraints.example,
      priorityClassName: 'high',
    };
    expect(podSpec(fields)).toMatchObject(fields);
  });

  it('spreads pods softly over nodes, per revision, when spec.topologySpreadConstraints is unset', () => {
    expect(podSpec({}).topologySpreadConstraints).toEqual(defaultTopologySpread('web'));
    expect(defaultTopologySpread('web')).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' } },
        matchLabelKeys: ['mycompany.com/revision'],
      },
    ]);
    // The default is the pod builder's, not the template's: it is in no revision.
    expect(podTemplateOf(nginx.spec)).not.toHaveProperty('topologySpreadConstraints');
  });

  it('spreads no pod when the list is [] and only as told when it is set', () => {
    expect(podSpec({ topologySpreadConstraints: [] })).not.toHaveProperty('topologySpreadConstraints');
    const own = templateFields.topologySpreadConstraints.example;
    expect(podSpec({ topologySpreadConstraints: own }).topologySpreadConstraints).toEqual(own);
  });

  it('leaves empty scheduling fields out of the pod', () => {
    const spec = podSpec({ nodeSelector: {}, tolerations: [], affinity: {} });
    expect(spec).not.toHaveProperty('nodeSelector');
    expect(spec).not.toHaveProperty('tolerations');
    expect(spec).not.toHaveProperty('affinity');
  });
});

describe('podLike', () => {
  it("drops the revision the API server merged into a spread's labelSelector, which it refuses on a new pod", () => {
    const model = podFor(nginx, podTemplateOf(nginx.spec), 'r1');
    const [spread] = model.spec!.topologySpreadConstraints!;
    spread!.labelSelector!.matchExpressions = [
      { key: 'mycompany.com/revision', operator: 'In', values: ['r1'] },
      { key: 'tier', operator: 'Exists' },
    ];
    model.spec!.nodeName = 'kwok-node-0';
    const copy = podLike(nginx, model).spec!;
    expect(copy.nodeName).toBeUndefined();
    expect(copy.topologySpreadConstraints![0]!.labelSelector!.matchExpressions).toEqual([
      { key: 'tier', operator: 'Exists' },
    ]);
    spread!.labelSelector!.matchExpressions = [
      { key: 'mycompany.com/revision', operator: 'In', values: ['r1'] },
    ];
    expect(podLike(nginx, model).spec!.topologySpreadConstraints).toEqual(defaultTopologySpread('web'));
  });
});

describe('podFor with spec.tls', () => {
  const withTls: Nginx = { ...nginx, spec: { replicas: 1, port: 8080, tls: { secretName: 'web-tls' } } };
  const template = podTemplateOf(withTls.spec);
  const built = podFor(withTls, template, revisionOf(template));

  it('mounts the Secret (not optional) read-only and exposes 443 as https', () => {
    const container = built.spec!.containers[0]!;
    expect(container.ports).toEqual([
      { name: 'http', containerPort: 8080 },
      { name: 'https', containerPort: 443 },
    ]);
    expect(container.volumeMounts).toContainEqual({
      name: 'nginx-tls',
      mountPath: '/etc/nginx/tls',
      readOnly: true,
    });
    expect(built.spec!.volumes).toContainEqual({
      name: 'nginx-tls',
      secret: {
        secretName: 'web-tls',
        optional: false,
        items: [
          { key: 'tls.crt', path: 'tls.crt' },
          { key: 'tls.key', path: 'tls.key' },
        ],
      },
    });
  });

  it('mounts the ConfigMap with default.conf and the TLS wrapper, named after both', () => {
    const configMap = configMapFor(withTls, template)!;
    expect(Object.keys(configMap.data!)).toEqual(['default.conf', 'tls.conf']);
    expect(configMap.data!['tls.conf']).toContain('listen 443 ssl;');
    expect(configMap.data!['tls.conf']).toContain('proxy_pass http://127.0.0.1:8080;');
    const volume = built.spec!.volumes!.find((v) => v.name === 'nginx-config')!;
    expect(volume.configMap).toEqual({
      name: configMap.metadata!.name,
      items: [
        { key: 'default.conf', path: 'default.conf' },
        { key: 'tls.conf', path: 'tls.conf' },
      ],
    });
    const plain = podTemplateOf({ replicas: 1, port: 8080 });
    expect(configMapFor(nginx, plain)!.metadata!.name).not.toBe(configMap.metadata!.name);
  });

  it('keeps the ConfigMap name of a config without TLS: the hash of default.conf alone', () => {
    const config = 'server { listen 80; }\n';
    expect(configMapFor(nginx, podTemplateOf({ replicas: 1, config }))!.metadata!.name).toBe(
      `web-config-${shortHash(config)}`,
    );
  });
});
