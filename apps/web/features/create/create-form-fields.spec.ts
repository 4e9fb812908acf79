import { nginxSpecSchema, TEMPLATE_FIELDS, templateFields } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import {
  fieldKind,
  fieldLabel,
  fromInput,
  idFor,
  initialValues,
  isIncluded,
  isRequiredPath,
  manifestOf,
  schemaAt,
  SECTIONS,
  SPEC_PATHS,
  templateInputsOf,
  toInput,
  valuesFromManifest,
  type CreateFormValues,
} from './create-form-fields';

const withSpec = (spec: Record<string, string>, extra: Partial<CreateFormValues> = {}): CreateFormValues => {
  const base = initialValues('default');
  return { ...base, name: 'web', spec: { ...base.spec, ...spec }, ...extra };
};

describe('schemaAt', () => {
  it('finds every form path in the shared schema', () => {
    for (const path of SPEC_PATHS) expect(schemaAt(path)).toBeTypeOf('object');
    expect(schemaAt('service.port')).toBe(nginxSpecSchema.properties!.service!.properties!.port);
  });

  it('throws for a path the schema does not have', () => {
    expect(() => schemaAt('service.nope')).toThrow(/spec.service.nope/);
  });
});

describe('SECTIONS', () => {
  it("shows every template field's inputs once, in the section the template table names", () => {
    const inputs = TEMPLATE_FIELDS.flatMap((field) => templateFields[field].inputs);
    expect(SPEC_PATHS.filter((path) => inputs.includes(path)).sort()).toEqual([...inputs].sort());
    expect(SECTIONS.placement).toEqual(['priorityClassName', 'nodeSelector']);
    expect(SECTIONS.container).toEqual(templateInputsOf('container').flatMap(({ paths }) => paths));
    expect(SECTIONS.basic).toEqual(['replicas', 'image']);
    expect(SECTIONS.tls[0]).toBe('tls.secretName');
    expect(SECTIONS.config).toEqual(['config']);
  });
});

describe('fieldKind', () => {
  it('picks the input from the schema', () => {
    expect(fieldKind(schemaAt('replicas'))).toBe('number');
    expect(fieldKind(schemaAt('image'))).toBe('text');
    expect(fieldKind(schemaAt('strategy.rollingUpdate.maxSurge'))).toBe('int-or-percent');
    expect(fieldKind(schemaAt('resources.limits.cpu'))).toBe('quantity');
    expect(fieldKind(schemaAt('service.type'))).toBe('enum');
    expect(fieldKind(schemaAt('paused'))).toBe('boolean');
    expect(fieldKind(schemaAt('config'), true)).toBe('multiline');
  });
});

describe('labels, ids and required', () => {
  it('labels each field once on the page', () => {
    const labels = SPEC_PATHS.map(fieldLabel);
    expect(new Set(labels).size).toBe(labels.length);
    expect(fieldLabel('replicas')).toBe('Replicas');
    expect(fieldLabel('minReadySeconds')).toBe('Min ready seconds');
    expect(fieldLabel('service.port')).toBe('Service port');
    expect(labels).not.toContain('Name');
    expect(labels).not.toContain('Namespace');
  });

  it('makes ids from paths', () => {
    expect(idFor('spec.strategy.rollingUpdate.maxSurge')).toBe('spec-strategy-rollingUpdate-maxSurge');
  });

  it('requires only replicas', () => {
    expect(SPEC_PATHS.filter(isRequiredPath)).toEqual(['replicas']);
  });
});

describe('fromInput / toInput', () => {
  it('reads text as the schema type', () => {
    expect(fromInput(schemaAt('replicas'), '3')).toBe(3);
    expect(fromInput(schemaAt('replicas'), 'x')).toBe('x');
    expect(fromInput(schemaAt('replicas'), ' ')).toBeUndefined();
    expect(fromInput(schemaAt('strategy.rollingUpdate.maxSurge'), '2')).toBe(2);
    expect(fromInput(schemaAt('strategy.rollingUpdate.maxSurge'), '25%')).toBe('25%');
    expect(fromInput(schemaAt('resources.limits.cpu'), '500m')).toBe('500m');
    expect(fromInput(schemaAt('resources.limits.cpu'), '1.5')).toBe('1.5');
    expect(fromInput(schemaAt('paused'), 'true')).toBe(true);
    expect(fromInput(schemaAt('paused'), '')).toBeUndefined();
  });

  it('writes values back as text', () => {
    expect(toInput(undefined)).toBe('');
    expect(toInput(false)).toBe('');
    expect(toInput(true)).toBe('true');
    expect(toInput(3)).toBe('3');
  });
});

describe('isIncluded and manifestOf', () => {
  it('sends only replicas and name for a fresh form', () => {
    expect(manifestOf(withSpec({}))).toEqual({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: 'web' },
      spec: { replicas: 1 },
    });
  });

  it('nests what is filled in and omits the rest', () => {
    const spec = manifestOf(
      withSpec({
        'strategy.rollingUpdate.maxSurge': '1',
        'resources.limits.memory': '64Mi',
        paused: 'true',
        healthCheckPath: '/healthz',
      }),
    ).spec;
    expect(spec).toEqual({
      replicas: 1,
      strategy: { rollingUpdate: { maxSurge: 1 } },
      resources: { limits: { memory: '64Mi' } },
      paused: true,
      healthCheckPath: '/healthz',
    });
  });

  it('leaves the rolling bounds out with Recreate', () => {
    const values = withSpec({ 'strategy.type': 'Recreate', 'strategy.rollingUpdate.maxSurge': '1' });
    expect(isIncluded('strategy.rollingUpdate.maxSurge', values)).toBe(false);
    expect(manifestOf(values).spec).toEqual({ replicas: 1, strategy: { type: 'Recreate' } });
  });

  it('sends the Service only when on, and nodePort only for NodePort and LoadBalancer', () => {
    const off = withSpec({ 'service.port': '8080' });
    expect(manifestOf(off).spec).toEqual({ replicas: 1 });
    const on = withSpec({ 'service.nodePort': '30001' }, { serviceEnabled: true });
    expect(isIncluded('service.nodePort', on)).toBe(false);
    expect(manifestOf(on).spec).toEqual({ replicas: 1, service: {} });
    const nodePort = withSpec(
      { 'service.type': 'NodePort', 'service.nodePort': '30001' },
      { serviceEnabled: true },
    );
    expect(manifestOf(nodePort).spec.service).toEqual({ type: 'NodePort', nodePort: 30001 });
  });

  it('sends the chosen budget bound only', () => {
    const values = withSpec(
      { 'disruptionBudget.minAvailable': '1', 'disruptionBudget.maxUnavailable': '50%' },
      { budget: 'maxUnavailable' },
    );
    expect(manifestOf(values).spec.disruptionBudget).toEqual({ maxUnavailable: '50%' });
    expect(manifestOf(withSpec({}, { budget: 'minAvailable' })).spec.disruptionBudget).toEqual({});
  });
});

describe('valuesFromManifest', () => {
  it('round-trips what the form holds', () => {
    const values = withSpec(
      {
        'service.type': 'NodePort',
        'service.nodePort': '30001',
        paused: 'true',
        'disruptionBudget.maxUnavailable': '1',
      },
      { serviceEnabled: true, budget: 'maxUnavailable' },
    );
    const back = valuesFromManifest(manifestOf(values), initialValues('other'));
    expect(back.dropped).toEqual([]);
    expect(back.values).toEqual({ ...values, namespace: 'other' });
  });

  it('keeps the earlier name and namespace when the manifest has none, and names what it drops', () => {
    const previous = { ...initialValues('team-a'), name: 'kept' };
    const { values, dropped } = valuesFromManifest(
      {
        metadata: { namespace: 'team-b' },
        spec: { replicas: 2, resources: { limits: { 'ephemeral-storage': '1Gi' } } },
      },
      previous,
    );
    expect(values.name).toBe('kept');
    expect(values.namespace).toBe('team-b');
    expect(values.spec.replicas).toBe('2');
    expect(dropped).toEqual(['resources.limits.ephemeral-storage']);
  });

  it('reads an empty budget as one to fill in', () => {
    expect(valuesFromManifest({ spec: { disruptionBudget: {} } }, initialValues('a')).values.budget).toBe(
      'minAvailable',
    );
    expect(valuesFromManifest(null, initialValues('a')).values.budget).toBe('');
  });
});

describe('issue 34 fields', () => {
  it('sends the canary, placement and TLS fields, and reads them back from YAML', () => {
    const v = withSpec(
      {
        'strategy.type': 'Canary',
        'strategy.canary.steps': '25%\npause\nanalysis errors',
        'strategy.canary.maxSurge': '1',
        'strategy.rollingUpdate.maxSurge': '50%',
        rollbackOnFailure: 'true',
        nodeSelector: 'disktype=ssd',
        priorityClassName: 'high',
        'tls.secretName': 'web-tls',
        'ingress.host': 'web.example.com',
        'ingress.tls': 'true',
      },
      { serviceEnabled: true },
    );
    const { spec } = manifestOf(v);
    expect(spec).toMatchObject({
      strategy: {
        type: 'Canary',
        canary: {
          steps: [{ setWeight: 25 }, { pause: {} }, { analysis: { templateName: 'errors' } }],
          maxSurge: 1,
        },
      },
      rollbackOnFailure: true,
      nodeSelector: { disktype: 'ssd' },
      priorityClassName: 'high',
      tls: { secretName: 'web-tls' },
      ingress: { host: 'web.example.com', tls: true },
    });
    expect(spec.strategy).not.toHaveProperty('rollingUpdate');
    const back = valuesFromManifest(manifestOf(v), v);
    expect(back.dropped).toEqual([]);
    expect(manifestOf(back.values)).toEqual(manifestOf(v));
  });

  it('offers the Ingress only with the Service on, and the canary bounds only for Canary', () => {
    expect(isIncluded('ingress.host', withSpec({}))).toBe(false);
    expect(isIncluded('ingress.host', withSpec({}, { serviceEnabled: true }))).toBe(true);
    expect(isIncluded('tls.secretName', withSpec({}))).toBe(true);
    expect(isIncluded('strategy.canary.steps', withSpec({ 'strategy.type': 'RollingUpdate' }))).toBe(false);
    expect(isIncluded('strategy.rollingUpdate.maxSurge', withSpec({ 'strategy.type': 'Canary' }))).toBe(
      false,
    );
  });

  it('names the analyses as dropped: the form leaves them to YAML mode', () => {
    const { dropped } = valuesFromManifest(
      { spec: { analysis: [{ name: 'errors' }], nodeSelector: { a: 'b' } } },
      initialValues('default'),
    );
    expect(dropped).toEqual(['analysis']);
  });
});

describe('strategy BlueGreen in the form', () => {
  it('sends the blue-green fields only for BlueGreen, without the rolling bounds', () => {
    const v = withSpec({
      'strategy.type': 'BlueGreen',
      'strategy.rollingUpdate.maxSurge': '50%',
      'strategy.blueGreen.scaleDownDelaySeconds': '5',
      'strategy.blueGreen.previewReplicaCount': '1',
    });
    // The box starts checked: automatic promotion is the API's default, left to the server.
    expect(v.spec['strategy.blueGreen.autoPromotionEnabled']).toBe('true');
    expect(manifestOf(v).spec.strategy).toEqual({
      type: 'BlueGreen',
      blueGreen: { scaleDownDelaySeconds: 5, previewReplicaCount: 1 },
    });
    expect(
      isIncluded('strategy.blueGreen.previewReplicaCount', withSpec({ 'strategy.type': 'Canary' })),
    ).toBe(false);
    expect(isIncluded('strategy.canary.steps', withSpec({ 'strategy.type': 'BlueGreen' }))).toBe(false);
  });

  it('sends an unchecked automatic promotion as false, and reads it back from YAML', () => {
    const v = withSpec({ 'strategy.type': 'BlueGreen', 'strategy.blueGreen.autoPromotionEnabled': '' });
    expect(manifestOf(v).spec.strategy).toEqual({
      type: 'BlueGreen',
      blueGreen: { autoPromotionEnabled: false },
    });
    const back = valuesFromManifest(manifestOf(v), v);
    expect(back.values.spec['strategy.blueGreen.autoPromotionEnabled']).toBe('');
    expect(back.dropped).toEqual([]);
    const absent = valuesFromManifest({ spec: { strategy: { type: 'BlueGreen' } } }, v);
    expect(absent.values.spec['strategy.blueGreen.autoPromotionEnabled']).toBe('true');
  });
});
