import { describe, expect, it } from 'vitest';
import {
  createFormReducer,
  initialCreateState,
  type CreateFormAction,
  type CreateFormState,
} from './create-form-state';

const run = (...actions: CreateFormAction[]): CreateFormState =>
  actions.reduce(createFormReducer, initialCreateState('team-a'));

describe('createFormReducer', () => {
  it('starts with one replica in the given namespace', () => {
    const state = run();
    expect(state.mode).toBe('form');
    expect(state.values.namespace).toBe('team-a');
    expect(state.values.spec.replicas).toBe('1');
  });

  it('edits a field, marks it touched and drops its server error and the alert', () => {
    const refused = run({
      type: 'refused',
      fields: { 'spec.replicas': 'Too many', 'metadata.name': 'Taken' },
      alert: 'No',
    });
    const state = createFormReducer(refused, { type: 'edit', field: 'spec.replicas', value: '3' });
    expect(state.values.spec.replicas).toBe('3');
    expect(state.touched.has('spec.replicas')).toBe(true);
    expect(state.serverErrors).toEqual({ 'metadata.name': 'Taken' });
    expect(state.alert).toBeUndefined();
  });

  it('edits name, namespace (trimmed) and the Service switch', () => {
    const state = run(
      { type: 'edit', field: 'metadata.name', value: 'web' },
      { type: 'edit', field: 'metadata.namespace', value: ' team-b ' },
      { type: 'edit', field: 'service.enabled', value: 'true' },
    );
    expect(state.values).toMatchObject({ name: 'web', namespace: 'team-b', serviceEnabled: true });
  });

  it('moves the budget value to the bound chosen', () => {
    const state = run(
      { type: 'edit', field: 'spec.disruptionBudget', value: 'minAvailable' },
      { type: 'edit', field: 'spec.disruptionBudget.minAvailable', value: '2' },
      { type: 'edit', field: 'spec.disruptionBudget', value: 'maxUnavailable' },
    );
    expect(state.values.budget).toBe('maxUnavailable');
    expect(state.values.spec['disruptionBudget.maxUnavailable']).toBe('2');
    expect(state.values.spec['disruptionBudget.minAvailable']).toBe('');
    expect(run({ type: 'edit', field: 'spec.disruptionBudget', value: '' }).values.budget).toBe('');
  });

  it('switches to YAML with the manifest of the form, and back with what the YAML says', () => {
    const yaml = run(
      { type: 'edit', field: 'metadata.name', value: 'web' },
      { type: 'edit', field: 'spec.replicas', value: '5000' },
      { type: 'switchMode', mode: 'yaml' },
    );
    expect(yaml.mode).toBe('yaml');
    expect(yaml.yamlText).toContain('replicas: 5000');
    expect(yaml.yamlText).toContain('name: web');
    const back = createFormReducer(
      createFormReducer(yaml, {
        type: 'editYaml',
        text: 'metadata:\n  name: other\nspec:\n  replicas: 2\n  paused: true\n',
      }),
      { type: 'switchMode', mode: 'form' },
    );
    expect(back.values).toMatchObject({ name: 'other', namespace: 'team-a' });
    expect(back.values.spec).toMatchObject({ replicas: '2', paused: 'true' });
    expect(back.yamlNotice).toBeUndefined();
  });

  it('keeps the form when the YAML cannot be read, and says what it dropped', () => {
    const broken = run(
      { type: 'switchMode', mode: 'yaml' },
      { type: 'editYaml', text: 'spec: [' },
      { type: 'switchMode', mode: 'form' },
    );
    expect(broken.values.spec.replicas).toBe('1');
    expect(broken.yamlNotice).toMatch(/could not be read/);
    const dropped = run(
      { type: 'switchMode', mode: 'yaml' },
      {
        type: 'editYaml',
        text: 'spec:\n  replicas: 1\n  resources:\n    requests:\n      ephemeral-storage: 1Gi\n',
      },
      { type: 'switchMode', mode: 'form' },
    );
    expect(dropped.yamlNotice).toMatch(/spec.resources.requests.ephemeral-storage/);
  });

  it('does nothing when switching to the mode it is in', () => {
    const state = run();
    expect(createFormReducer(state, { type: 'switchMode', mode: 'form' })).toBe(state);
  });

  it('submits and takes a refusal', () => {
    const submitting = run({ type: 'touch', fields: ['metadata.name'] }, { type: 'submit' });
    expect(submitting.submitting).toBe(true);
    expect(submitting.touched.has('metadata.name')).toBe(true);
    const refused = createFormReducer(submitting, { type: 'refused', fields: { 'metadata.name': 'Taken' } });
    expect(refused).toMatchObject({
      submitting: false,
      serverErrors: { 'metadata.name': 'Taken' },
      alert: undefined,
    });
  });
});
