import { TEMPLATE_FIELDS, podTemplateOf, revisionOf, templateFields, type Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { defaultTopologySpread, podFor, podLike } from './pod-builder.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec: { replicas: 1 },
};

describe('podFor', () => {
  it('runs every template field: each one set changes the pod it builds', () => {
    const plain = podTemplateOf(nginx.spec);
    const podOf = (template = plain) => podFor(nginx, template, revisionOf(plain)).spec;
    for (const name of TEMPLATE_FIELDS) {
      const template = podTemplateOf({ ...nginx.spec, [name]: templateFields[name].example });
      expect(podOf(template), name).not.toEqual(podOf());
    }
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
