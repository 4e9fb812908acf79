import { parse as parseYaml, stringify as toYaml } from 'yaml';
import {
  initialValues,
  manifestOf,
  valuesFromManifest,
  type BudgetKind,
  type CreateFormValues,
} from '@/features/create/create-form-fields';
import type { FieldErrors } from './form-errors';

export type CreateMode = 'form' | 'yaml';

/** Everything the create page holds between renders. */
export interface CreateFormState {
  mode: CreateMode;
  values: CreateFormValues;
  /** Fields whose own errors are shown (edited, or every field after a refused submit). */
  touched: ReadonlySet<string>;
  /** The server's causes by field, each until that field is edited. */
  serverErrors: FieldErrors;
  /** A refusal with no field to stand at. */
  alert?: string;
  yamlText: string;
  /** Why switching back to the form lost something. */
  yamlNotice?: string;
  submitting: boolean;
}

/**
 * What the page does to its state. `edit` names the field by path: `metadata.name`, `metadata.namespace`,
 * `spec.<path>`, or the switches `service.enabled` ('true'/'') and `spec.disruptionBudget` (the bound's name).
 */
export type CreateFormAction =
  | { type: 'edit'; field: string; value: string }
  | { type: 'editYaml'; text: string }
  | { type: 'switchMode'; mode: CreateMode }
  | { type: 'touch'; fields: readonly string[] }
  | { type: 'submit' }
  | { type: 'refused'; fields: FieldErrors; alert?: string };

/** The state of an empty form for `namespace`. */
export function initialCreateState(namespace: string): CreateFormState {
  return {
    mode: 'form',
    values: initialValues(namespace),
    touched: new Set(),
    serverErrors: {},
    yamlText: '',
    submitting: false,
  };
}

function edited(values: CreateFormValues, field: string, value: string): CreateFormValues {
  if (field === 'metadata.name') return { ...values, name: value };
  if (field === 'metadata.namespace') return { ...values, namespace: value.trim() };
  if (field === 'service.enabled') return { ...values, serviceEnabled: value === 'true' };
  if (field === 'spec.disruptionBudget') {
    // The one bound's value follows the choice of bound.
    const before = values.budget ? (values.spec[`disruptionBudget.${values.budget}`] ?? '') : '';
    const spec: Record<string, string> = {
      ...values.spec,
      'disruptionBudget.minAvailable': '',
      'disruptionBudget.maxUnavailable': '',
    };
    if (value) spec[`disruptionBudget.${value}`] = before;
    return { ...values, budget: value as BudgetKind, spec };
  }
  return { ...values, spec: { ...values.spec, [field.replace(/^spec\./, '')]: value } };
}

function switched(state: CreateFormState, mode: CreateMode): CreateFormState {
  if (mode === state.mode) return state;
  const base = { ...state, mode, alert: undefined, serverErrors: {} };
  if (mode === 'yaml') return { ...base, yamlText: toYaml(manifestOf(state.values)), yamlNotice: undefined };
  let manifest: unknown;
  try {
    manifest = parseYaml(state.yamlText);
  } catch {
    return { ...base, yamlNotice: 'The YAML could not be read, so the form keeps its earlier values.' };
  }
  const { values, dropped } = valuesFromManifest(manifest, state.values);
  return {
    ...base,
    values,
    yamlNotice: dropped.length
      ? `The form has no field for ${dropped.map((p) => `spec.${p}`).join(', ')}: switch to YAML to keep them.`
      : undefined,
  };
}

/** The create page's reducer: pure, so every transition is tested without a browser. */
export function createFormReducer(state: CreateFormState, action: CreateFormAction): CreateFormState {
  switch (action.type) {
    case 'edit': {
      const { [action.field]: _dropped, ...serverErrors } = state.serverErrors;
      return {
        ...state,
        values: edited(state.values, action.field, action.value),
        touched: new Set(state.touched).add(action.field),
        serverErrors,
        alert: undefined,
      };
    }
    case 'editYaml':
      return { ...state, yamlText: action.text, alert: undefined };
    case 'switchMode':
      return switched(state, action.mode);
    case 'touch':
      return { ...state, touched: new Set([...state.touched, ...action.fields]) };
    case 'submit':
      return { ...state, submitting: true, alert: undefined, serverErrors: {} };
    case 'refused':
      return { ...state, submitting: false, serverErrors: action.fields, alert: action.alert };
  }
}
