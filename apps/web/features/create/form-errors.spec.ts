import { describe, expect, it } from 'vitest';
import { StatusError, type KubeStatus } from '@/lib/api/api-client';
import { initialValues, type CreateFormValues } from '@/features/create/create-form-fields';
import {
  createFormErrors,
  fieldOfRule,
  formFields,
  impliedCauses,
  refusalOf,
  shortMessage,
} from './form-errors';

const values = (
  spec: Record<string, string> = {},
  extra: Partial<CreateFormValues> = {},
): CreateFormValues => {
  const base = initialValues('default');
  return { ...base, name: 'web', spec: { ...base.spec, ...spec }, ...extra };
};

const status = (code: number, reason: string, message: string, details?: KubeStatus['details']) =>
  new StatusError(code, reason, message, { kind: 'Status', code, reason, message, details } as KubeStatus);

describe('shortMessage', () => {
  it('drops the value and field the form already shows', () => {
    expect(
      shortMessage(
        'spec.replicas',
        'Invalid value: 5000: spec.replicas should be less than or equal to 1000',
      ),
    ).toBe('Should be less than or equal to 1000');
    expect(shortMessage('spec.image', 'must not be empty')).toBe('Must not be empty');
    expect(shortMessage('spec.image', 'Invalid value: "nginx:": spec.image bad reference')).toBe(
      'Bad reference',
    );
  });

  it("keeps a rule's whole message, which has no value, colons and all", () => {
    expect(
      shortMessage(
        'spec',
        'Invalid value: ingress needs spec.service: the Ingress routes to the owned Service',
      ),
    ).toBe('Ingress needs spec.service: the Ingress routes to the owned Service');
  });
});

describe('createFormErrors', () => {
  it('accepts a fresh form with a name', () => {
    expect(createFormErrors(values(), undefined)).toEqual({});
  });

  it('names the name, namespace and schema problems with the server messages', () => {
    const errors = createFormErrors(
      { ...values({ replicas: '5000' }), name: '', namespace: 'Bad' },
      undefined,
    );
    expect(errors['metadata.name']).toBe('Must not be empty');
    expect(errors['metadata.namespace']).toMatch(/^A lowercase RFC 1123 label/);
    expect(errors['spec.replicas']).toBe('Should be less than or equal to 1000');
    expect(createFormErrors(values({ replicas: '' }), undefined)['spec.replicas']).toBe('Required');
  });

  it('checks int-or-percent, quantities and enums against the schema', () => {
    const errors = createFormErrors(
      values({ 'strategy.rollingUpdate.maxSurge': '12x', 'resources.requests.cpu': 'lots' }),
      undefined,
    );
    expect(errors['spec.strategy.rollingUpdate.maxSurge']).toMatch(/^Should match/);
    expect(errors['spec.resources.requests.cpu']).toMatch(/^Should match/);
  });

  it('puts the spec rules at the field to change', () => {
    const rolling = createFormErrors(
      values({ 'strategy.rollingUpdate.maxSurge': '0', 'strategy.rollingUpdate.maxUnavailable': '0%' }),
      undefined,
    );
    expect(rolling['spec.strategy.rollingUpdate.maxUnavailable']).toBe(
      'maxSurge and maxUnavailable may not both be 0',
    );
    const limits = createFormErrors(
      values({ 'resources.requests.memory': '128Mi', 'resources.limits.memory': '64Mi' }),
      undefined,
    );
    expect(limits['spec.resources.limits.memory']).toBe('Limits must not be below requests');
    const budget = createFormErrors(values({}, { budget: 'maxUnavailable' }), undefined);
    expect(budget['spec.disruptionBudget.maxUnavailable']).toBe('Required');
    const filled = createFormErrors(
      values({ 'disruptionBudget.maxUnavailable': '150%' }, { budget: 'maxUnavailable' }),
      undefined,
    );
    expect(filled['spec.disruptionBudget.maxUnavailable']).toMatch(/^Should match/);
    const both = createFormErrors(
      values({ 'disruptionBudget.minAvailable': '1' }, { budget: 'minAvailable' }),
      undefined,
    );
    expect(both).toEqual({});
    const deadline = createFormErrors(
      values({ minReadySeconds: '30', progressDeadlineSeconds: '30' }),
      undefined,
    );
    expect(deadline['spec.progressDeadlineSeconds']).toBe(
      'progressDeadlineSeconds must be greater than minReadySeconds',
    );
  });

  it('names the config line nginx would refuse', () => {
    const errors = createFormErrors(values({ config: 'server {\n  listen 80;\n}}' }), undefined);
    expect(errors['spec.config']).toBe('Not valid nginx configuration: line 3: unexpected "}"');
  });

  it('checks the image against the allow-list', () => {
    const errors = createFormErrors(values({ image: 'evil.example/nginx' }), {
      prefixes: ['docker.io/library/nginx'],
    });
    expect(errors['spec.image']).toBeTruthy();
  });
});

describe('fieldOfRule', () => {
  it('homes the cpu limit rule at the cpu limit', () => {
    const v = values({ 'resources.requests.cpu': '2', 'resources.limits.cpu': '1' });
    expect(fieldOfRule('spec.resources', v)).toBe('spec.resources.limits.cpu');
    expect(fieldOfRule('spec.service', v)).toBe('spec.service.nodePort');
    expect(fieldOfRule('spec.replicas', v)).toBe('spec.replicas');
    expect(fieldOfRule('spec.strategy.canary.steps[1].setWeight', v)).toBe('spec.strategy.canary.steps');
    expect(fieldOfRule('spec.nodeSelector[disk type]', v)).toBe('spec.nodeSelector');
    expect(fieldOfRule('spec.tls', v)).toBe('spec.tls.secretName');
  });
});

describe('formFields', () => {
  it('lists only the inputs on screen', () => {
    const fields = formFields(values());
    expect(fields.slice(0, 4)).toEqual([
      'metadata.name',
      'metadata.namespace',
      'spec.replicas',
      'spec.image',
    ]);
    expect(fields).not.toContain('spec.service.type');
    expect(formFields(values({}, { serviceEnabled: true }))).toContain('spec.service.type');
  });
});

describe('refusalOf', () => {
  const fields = formFields(values());

  it('puts causes at their fields, and the rest in an alert', () => {
    const error = status(422, 'Invalid', 'Nginx "web" is invalid', {
      causes: [
        {
          field: 'spec.replicas',
          message: 'Invalid value: 5000: spec.replicas should be less than or equal to 1000',
        },
        { field: 'spec.nope', message: 'unknown field "spec.nope"' },
      ],
    });
    const refusal = refusalOf(error, fields, values());
    expect(refusal.fields).toEqual({ 'spec.replicas': 'Should be less than or equal to 1000' });
    expect(refusal.alert).toBe('Nginx "web" is invalid (422 Invalid)');
  });

  it('reads a taken name and a missing namespace as field causes', () => {
    const taken = status(409, 'AlreadyExists', 'nginxes "web" already exists');
    expect(impliedCauses(taken)).toHaveLength(1);
    expect(refusalOf(taken, fields).fields['metadata.name']).toMatch(/already exists/);
    expect(refusalOf(taken, fields).alert).toBeUndefined();
    const missing = status(404, 'NotFound', 'namespaces "x" not found', { kind: 'namespaces', name: 'x' });
    expect(refusalOf(missing, fields).fields['metadata.namespace']).toBe('Namespace "x" does not exist');
  });

  it('shows everything as an alert where no field is on screen (YAML mode), a 403 included', () => {
    const forbidden = status(403, 'Forbidden', 'viewer may not create nginxes');
    expect(refusalOf(forbidden, [])).toEqual({
      fields: {},
      alert: 'viewer may not create nginxes (403 Forbidden)',
    });
    expect(refusalOf(new Error('offline'), fields)).toEqual({ fields: {}, alert: 'offline' });
  });
});
