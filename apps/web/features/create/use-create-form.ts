'use client';

import { useRouter } from 'next/navigation';
import { useMemo, useReducer, type FormEvent } from 'react';
import { useReadySession } from '@/components/shell/session-provider';
import { idFor, manifestOf, type CreateFormValues } from '@/features/create/create-form-fields';
import { createFormReducer, initialCreateState } from '@/features/create/create-form-state';
import { checkYaml } from '@/features/create/create-yaml';
import { createFormErrors, formFields, refusalOf } from '@/features/create/form-errors';
import { detailHref } from '@/lib/nginx/nginx-view';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';

const focus = (id: string) => requestAnimationFrame(() => document.getElementById(id)?.focus());

/** One create as sent: where, the manifest, and the form it came from (none for YAML) to place a refusal on. */
interface CreateRequest {
  namespace: string;
  name: string;
  body: object | string;
  form?: { fields: string[]; values: CreateFormValues };
}

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

  // `state.submitting` is the busy state, not the mutation's: it stays set after success, while the page changes.
  const create = useNginxMutation((request: CreateRequest) => request, {
    mutationFn: ({ namespace, body }) => api.createNginx(namespace, body),
    onSuccess: (_created, { namespace, name }) => router.push(detailHref(namespace, name)),
    onError: (error, { form }) => {
      const refusal = refusalOf(error, form?.fields ?? [], form?.values);
      dispatch({ type: 'refused', fields: refusal.fields, alert: refusal.alert });
      const first = Object.keys(refusal.fields)[0];
      if (first) focus(idFor(first));
    },
  });

  const errorOf = (field: string) =>
    state.serverErrors[field] ?? (state.touched.has(field) ? errors[field] : undefined);
  const edit = (field: string, value: string) => dispatch({ type: 'edit', field, value });

  function submit(event: FormEvent) {
    event.preventDefault();
    let request: CreateRequest;
    if (mode === 'form') {
      const fields = formFields(values);
      const first = fields.find((f) => errors[f]);
      if (first) {
        dispatch({ type: 'touch', fields });
        focus(idFor(first));
        return;
      }
      request = {
        namespace: values.namespace,
        name: values.name,
        body: manifestOf(values),
        form: { fields, values },
      };
    } else {
      if (!yaml.object) {
        focus('manifest-yaml');
        return;
      }
      const metadata = yaml.object.metadata as { name: string };
      request = { namespace: yaml.namespace!, name: String(metadata.name), body: yamlText };
    }
    dispatch({ type: 'submit' });
    create.mutate(request);
  }

  return { state, dispatch, form: { values, errorOf, edit }, yaml, allowedImages, submit };
}
