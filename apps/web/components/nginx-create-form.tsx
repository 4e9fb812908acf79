'use client';

import {
  NGINX_API_VERSION,
  NGINX_KIND,
  imageAllowlistErrors,
  namespaceError,
  nameError,
  nginxSpecSchema,
  validateNginx,
  type FieldError,
  type ImageAllowlist,
} from '@ngx/nginx-api';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { errorMessage, StatusError, type StatusCause } from '../lib/api-client';
import { detailHref } from '../lib/nginx-view';
import { canWrite } from '../lib/session';
import { EmptyState } from './empty-state';
import { Field } from './field';
import { fromInput, SchemaField, shortMessage } from './schema-field';
import { useReadySession } from './session-provider';

/** The form's fields: the basic ones; every other spec field is set in the YAML mode. */
const FORM_FIELDS = new Set(['replicas', 'image']);
const SPEC_FIELDS = Object.entries(nginxSpecSchema.properties ?? {}).filter(([key]) => FORM_FIELDS.has(key));
const SPEC_REQUIRED = new Set(nginxSpecSchema.required ?? []);

interface FormValues {
  name: string;
  namespace: string;
  spec: Record<string, string>;
}

type Errors = Record<string, string>;

/** The manifest the form describes (without the namespace, which goes in the URL). */
function manifestOf(values: FormValues) {
  const spec: Record<string, unknown> = {};
  for (const [key, schema] of SPEC_FIELDS) {
    const value = fromInput(schema, values.spec[key] ?? '');
    if (value !== undefined) spec[key] = value;
  }
  return { apiVersion: NGINX_API_VERSION, kind: NGINX_KIND, metadata: { name: values.name }, spec };
}

/**
 * Field errors of the form, keyed by the field's path (metadata.name, metadata.namespace, spec.replicas …), with
 * spec.image checked against the server's image allow-list as the API will.
 */
function formErrors(values: FormValues, imageAllowlist: ImageAllowlist | undefined): Errors {
  const errors: Errors = {};
  const nameProblem = nameError(values.name);
  if (nameProblem) errors['metadata.name'] = nameProblem.charAt(0).toUpperCase() + nameProblem.slice(1);
  const namespaceProblem = namespaceError(values.namespace);
  if (namespaceProblem)
    errors['metadata.namespace'] = namespaceProblem.charAt(0).toUpperCase() + namespaceProblem.slice(1);
  const manifest = manifestOf(values);
  for (const error of [
    ...validateNginx(manifest),
    ...imageAllowlistErrors(manifest.spec.image, imageAllowlist),
  ])
    if (error.field !== 'metadata.name')
      errors[error.field] ??=
        error.reason === 'FieldValueRequired' ? 'Required' : shortMessage(error.field, error.message);
  return errors;
}

interface YamlCheck {
  object?: Record<string, unknown>;
  namespace?: string;
  problems: string[];
}

/** The YAML manifest parsed and checked against the shared schema. */
function checkYaml(text: string, fallbackNamespace: string): YamlCheck {
  let object: unknown;
  try {
    object = parseYaml(text);
  } catch (error) {
    return { problems: [`YAML: ${errorMessage(error).split('\n')[0]}`] };
  }
  const errors: FieldError[] = validateNginx(object);
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  if (typeof object === 'object' && object !== null && metadata?.name === undefined)
    errors.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value' });
  const namespace = typeof metadata?.namespace === 'string' ? metadata.namespace : fallbackNamespace;
  const namespaceProblem = namespaceError(namespace);
  if (namespaceProblem)
    errors.push({ field: 'metadata.namespace', reason: 'FieldValueInvalid', message: namespaceProblem });
  return {
    object: errors.length ? undefined : (object as Record<string, unknown>),
    namespace,
    problems: errors.map((e) => (e.message.startsWith(e.field) ? e.message : `${e.field}: ${e.message}`)),
  };
}

const idFor = (field: string) => field.replace(/\./g, '-');

/** Create an Nginx: a form generated from the shared schema, or a YAML manifest. */
export function NginxCreateForm() {
  const { identity, api } = useReadySession();
  const router = useRouter();
  const params = useSearchParams();
  const limited = identity.namespaces;
  const requested = params.get('namespace') ?? '';
  const initialNamespace = limited
    ? limited.includes(requested)
      ? requested
      : limited[0]!
    : requested || 'default';

  const [mode, setMode] = useState<'form' | 'yaml'>('form');
  const [values, setValues] = useState<FormValues>(() => ({
    name: '',
    namespace: initialNamespace,
    spec: Object.fromEntries(SPEC_FIELDS.map(([key]) => [key, key === 'replicas' ? '1' : ''])),
  }));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [serverErrors, setServerErrors] = useState<Errors>({});
  const [alert, setAlert] = useState<string | undefined>();
  const [yamlText, setYamlText] = useState('');
  const [yamlNotice, setYamlNotice] = useState<string | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const allowedImages = identity.imageAllowlist;
  const imageAllowlist = useMemo(
    () => (allowedImages ? { prefixes: allowedImages } : undefined),
    [allowedImages],
  );
  const errors = useMemo(() => formErrors(values, imageAllowlist), [values, imageAllowlist]);
  const yaml = useMemo(() => checkYaml(yamlText, values.namespace), [yamlText, values.namespace]);

  if (!canWrite(identity))
    return (
      <div className="panel">
        <EmptyState
          title="Your role cannot create Nginxes"
          action={
            <Link className="button" href="/">
              Back to the list
            </Link>
          }
        >
          You are signed in as {identity.name} with the {identity.role} role, which can only view.
        </EmptyState>
      </div>
    );

  const shown = (field: string) => serverErrors[field] ?? (touched.has(field) ? errors[field] : undefined);

  const update = (field: string, change: (v: FormValues) => FormValues) => {
    setValues(change);
    setTouched((t) => new Set(t).add(field));
    setServerErrors((current) => {
      const { [field]: _dropped, ...rest } = current;
      return rest;
    });
    setAlert(undefined);
  };

  function switchMode(next: 'form' | 'yaml') {
    if (next === mode) return;
    setAlert(undefined);
    setServerErrors({});
    if (next === 'yaml') {
      const manifest = manifestOf(values);
      setYamlText(toYaml(manifest));
      setYamlNotice(undefined);
    } else {
      // Carry what the YAML says back into the form, as far as it can be read.
      try {
        const object = parseYaml(yamlText) as {
          metadata?: { name?: unknown; namespace?: unknown };
          spec?: Record<string, unknown>;
        } | null;
        setValues((v) => ({
          name: typeof object?.metadata?.name === 'string' ? object.metadata.name : v.name,
          namespace:
            typeof object?.metadata?.namespace === 'string' ? object.metadata.namespace : v.namespace,
          spec: Object.fromEntries(
            SPEC_FIELDS.map(([key]) => {
              const value = object?.spec?.[key];
              return [key, value === undefined || value === null ? '' : String(value)];
            }),
          ),
        }));
      } catch {
        setYamlNotice('The YAML could not be read, so the form keeps its earlier values.');
      }
    }
    setMode(next);
  }

  function showServerError(error: unknown) {
    if (!(error instanceof StatusError)) {
      setAlert(errorMessage(error));
      return;
    }
    const mapped: Errors = {};
    const unmapped: string[] = [];
    for (const cause of [...error.causes, ...impliedCauses(error)]) {
      const field = cause.field ?? '';
      const known =
        field === 'metadata.name' ||
        field === 'metadata.namespace' ||
        SPEC_FIELDS.some(([k]) => field === `spec.${k}`);
      const message = cause.message ?? cause.reason ?? 'invalid';
      if (known && mode === 'form')
        mapped[field] = mapped[field]
          ? `${mapped[field]}; ${shortMessage(field, message)}`
          : shortMessage(field, message);
      else unmapped.push(field ? `${field}: ${message}` : message);
    }
    setServerErrors(mapped);
    if (Object.keys(mapped).length === 0 || unmapped.length)
      setAlert(
        unmapped.length && mode === 'yaml'
          ? `${error.message}`
          : `${error.message}${error.code ? ` (${error.code} ${error.reason})` : ''}`,
      );
    const first = Object.keys(mapped)[0];
    if (first) requestAnimationFrame(() => document.getElementById(idFor(first))?.focus());
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAlert(undefined);
    setServerErrors({});
    let namespace: string;
    let body: object | string;
    let name: string;
    if (mode === 'form') {
      if (Object.keys(errors).length) {
        setTouched(
          new Set(['metadata.name', 'metadata.namespace', ...SPEC_FIELDS.map(([k]) => `spec.${k}`)]),
        );
        const first = ['metadata.name', 'metadata.namespace', ...SPEC_FIELDS.map(([k]) => `spec.${k}`)].find(
          (f) => errors[f],
        );
        if (first) document.getElementById(idFor(first))?.focus();
        return;
      }
      namespace = values.namespace;
      body = manifestOf(values);
      name = values.name;
    } else {
      if (!yaml.object) {
        document.getElementById('manifest-yaml')?.focus();
        return;
      }
      namespace = yaml.namespace!;
      body = yamlText;
      name = String((yaml.object.metadata as { name: string }).name);
    }
    setSubmitting(true);
    try {
      await api.createNginx(namespace, body);
      router.push(detailHref(namespace, name));
    } catch (error) {
      showServerError(error);
      setSubmitting(false);
    }
  }

  const namespaceField = (
    <Field
      id="metadata-namespace"
      label="Namespace"
      required
      error={shown('metadata.namespace')}
      help={mode === 'yaml' ? 'Used when the manifest names no namespace.' : undefined}
    >
      {(control) =>
        limited ? (
          <select
            {...control}
            value={values.namespace}
            onChange={(e) => update('metadata.namespace', (v) => ({ ...v, namespace: e.target.value }))}
            style={{ maxWidth: '20rem' }}
          >
            {limited.map((ns) => (
              <option key={ns}>{ns}</option>
            ))}
          </select>
        ) : (
          <input
            {...control}
            value={values.namespace}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) =>
              update('metadata.namespace', (v) => ({ ...v, namespace: e.target.value.trim() }))
            }
            style={{ maxWidth: '20rem' }}
          />
        )
      }
    </Field>
  );

  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumbs">
        <ol>
          <li>
            <Link href="/">Nginxes</Link>
          </li>
          <li aria-current="page">Create</li>
        </ol>
      </nav>
      <div className="page-head">
        <div>
          <h1>Create an Nginx</h1>
          <p className="subtitle">The controller starts its pods as soon as it exists.</p>
        </div>
      </div>
      <section className="panel form-card" aria-label="New Nginx">
        <div className="panel-head">
          <span className="label" id="mode-label">
            Edit as
          </span>
          <div className="segmented" role="group" aria-labelledby="mode-label">
            <button type="button" aria-pressed={mode === 'form'} onClick={() => switchMode('form')}>
              Form
            </button>
            <button type="button" aria-pressed={mode === 'yaml'} onClick={() => switchMode('yaml')}>
              YAML
            </button>
          </div>
        </div>
        <form className="panel-body" onSubmit={submit} noValidate ref={formRef} data-testid="create-form">
          {alert && (
            <div className="alert" role="alert" data-testid="form-alert">
              <strong>The Nginx was not created.</strong>
              {alert}
            </div>
          )}
          {yamlNotice && mode === 'form' && (
            <p className="alert info" role="status">
              {yamlNotice}
            </p>
          )}
          {mode === 'form' ? (
            <>
              <Field
                id="metadata-name"
                label="Name"
                required
                error={shown('metadata.name')}
                help="Lowercase letters, digits and '-', at most 63 characters."
              >
                {(control) => (
                  <input
                    {...control}
                    name="name"
                    value={values.name}
                    autoComplete="off"
                    spellCheck={false}
                    autoFocus
                    onChange={(e) => update('metadata.name', (v) => ({ ...v, name: e.target.value }))}
                    style={{ maxWidth: '28rem' }}
                  />
                )}
              </Field>
              {namespaceField}
              {SPEC_FIELDS.map(([key, schema]) => (
                <SchemaField
                  key={key}
                  id={idFor(`spec.${key}`)}
                  fieldKey={key}
                  schema={schema}
                  required={SPEC_REQUIRED.has(key)}
                  value={values.spec[key] ?? ''}
                  error={shown(`spec.${key}`)}
                  help={
                    key === 'image' && allowedImages
                      ? `${schema.description ?? ''} Allowed: ${allowedImages.join(', ')} (nginx:1.27 is docker.io/library/nginx:1.27).`
                      : undefined
                  }
                  onChange={(value) =>
                    update(`spec.${key}`, (v) => ({ ...v, spec: { ...v.spec, [key]: value } }))
                  }
                />
              ))}
            </>
          ) : (
            <>
              {namespaceField}
              <Field
                id="manifest-yaml"
                label="Manifest (YAML)"
                required
                error={yaml.problems.length && yamlText.trim() ? yaml.problems.join('\n') : undefined}
                help={
                  <>
                    An <code>{NGINX_API_VERSION}</code> <code>{NGINX_KIND}</code>, as for{' '}
                    <code>kubectl apply</code>.
                  </>
                }
              >
                {(control) => (
                  <textarea
                    {...control}
                    value={yamlText}
                    rows={14}
                    spellCheck={false}
                    onChange={(e) => {
                      setYamlText(e.target.value);
                      setAlert(undefined);
                    }}
                  />
                )}
              </Field>
            </>
          )}
          <div className="form-actions">
            <button type="submit" className="primary" disabled={submitting}>
              {submitting ? 'Creating…' : 'Create'}
            </button>
            <Link href="/" className="button">
              Cancel
            </Link>
          </div>
        </form>
      </section>
    </>
  );
}

/**
 * Refusals whose Status names no field but clearly concerns one: a name already taken, a namespace that does not
 * exist. Shown next to that field like the API server's own causes.
 */
function impliedCauses(error: StatusError): StatusCause[] {
  const details = error.status?.details;
  if (error.reason === 'AlreadyExists')
    return [{ field: 'metadata.name', message: 'an Nginx with this name already exists in the namespace' }];
  if (error.code === 404 && details?.kind === 'namespaces')
    return [{ field: 'metadata.namespace', message: `namespace "${details.name ?? ''}" does not exist` }];
  return [];
}
