'use client';

import { useRouter } from 'next/navigation';
import { useMemo, useReducer, type FormEvent } from 'react';
import { useReadySession } from '@/components/shell/session-provider';
import { idFor, manifestOf } from '@/features/create/create-form-fields';
import { createFormReducer, initialCreateState } from '@/features/create/create-form-state';
import { checkYaml } from '@/features/create/create-yaml';
import { createFormErrors, formFields, refusalOf } from '@/features/create/form-errors';
import { detailHref } from '@/lib/nginx/nginx-view';

const focus = (id: string) => requestAnimationFrame(() => document.getElementById(id)?.focus());

/**
 * The create page's state and actions: errors computed as the form is typed (shown per field once it was edited or
 * a submit was refused), the YAML check, and a submit that sends nothing while either has a problem.
 */
export function useCreateForm(initialNamespace: string) {
  const { identity, api } = useReadySession();
  const router = useRouter();
  const [state, dispatch] = useReducer(createFormReducer, initialNamespace, initialCreateState);
  const { values, mode, yamlText } = state;

  const allowedImages = identity.imageAllowlist;
  const imageAllowlist = useMemo(
    () => (allowedImages ? { prefixes: allowedImages } : undefined),
    [allowedImages],
  );
  const errors = useMemo(() => createFormErrors(values, imageAllowlist), [values, imageAllowlist]);
  const yaml = useMemo(() => checkYaml(yamlText, values.namespace), [yamlText, values.namespace]);

  const errorOf = (field: string) =>
    state.serverErrors[field] ?? (state.touched.has(field) ? errors[field] : undefined);
  const edit = (field: string, value: string) => dispatch({ type: 'edit', field, value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    let namespace: string;
    let name: string;
    let body: object | string;
    const fields = formFields(values);
    if (mode === 'form') {
      const first = fields.find((f) => errors[f]);
      if (first) {
        dispatch({ type: 'touch', fields });
        focus(idFor(first));
        return;
      }
      [namespace, name, body] = [values.namespace, values.name, manifestOf(values)];
    } else {
      if (!yaml.object) {
        focus('manifest-yaml');
        return;
      }
      const metadata = yaml.object.metadata as { name: string };
      [namespace, name, body] = [yaml.namespace!, String(metadata.name), yamlText];
    }
    dispatch({ type: 'submit' });
    try {
      await api.createNginx(namespace, body);
      router.push(detailHref(namespace, name));
    } catch (error) {
      const onScreen = mode === 'form' ? fields : [];
      const refusal = refusalOf(error, onScreen, mode === 'form' ? values : undefined);
      dispatch({ type: 'refused', fields: refusal.fields, alert: refusal.alert });
      const first = Object.keys(refusal.fields)[0];
      if (first) focus(idFor(first));
    }
  }

  return { state, dispatch, form: { values, errorOf, edit }, yaml, allowedImages, submit };
}
