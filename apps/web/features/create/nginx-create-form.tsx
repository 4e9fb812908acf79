'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { BasicSection } from '@/features/create/basic-section';
import { ConfigSection } from '@/features/create/config-section';
import { ContainerSection } from '@/features/create/container-section';
import { CreateRefused } from '@/features/create/create-refused';
import { PlacementSection } from '@/features/create/placement-section';
import { RolloutSection } from '@/features/create/rollout-section';
import { ServiceSection } from '@/features/create/service-section';
import { TlsSection } from '@/features/create/tls-section';
import { useCreateForm } from '@/features/create/use-create-form';
import { YamlMode } from '@/features/create/yaml-mode';
import { useReadySession } from '@/components/shell/session-provider';
import { writeRefusal } from '@/lib/session/permissions';
import './create.css';

/** Create an Nginx: a form generated from the shared schema, in sections, or a YAML manifest. */
export function NginxCreateForm() {
  const { identity } = useReadySession();
  const params = useSearchParams();
  const limited = identity.namespaces;
  const requested = params.get('namespace') ?? '';
  const initialNamespace = limited
    ? limited.includes(requested)
      ? requested
      : (limited[0] ?? '')
    : requested || 'default';
  const refusal = writeRefusal(identity);
  if (refusal) return <CreateRefused reason={refusal} />;
  return <CreateFormBody initialNamespace={initialNamespace} limited={limited} />;
}

function CreateFormBody({
  initialNamespace,
  limited,
}: {
  initialNamespace: string;
  limited: string[] | null;
}) {
  const { state, dispatch, form, yaml, allowedImages, submit } = useCreateForm(initialNamespace);
  const { mode } = state;
  const switchMode = (next: 'form' | 'yaml') => dispatch({ type: 'switchMode', mode: next });

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
        <form className="panel-body" onSubmit={submit} noValidate data-testid="create-form">
          {state.alert && (
            <div className="alert" role="alert" data-testid="form-alert">
              <strong>The Nginx was not created.</strong>
              {state.alert}
            </div>
          )}
          {state.yamlNotice && mode === 'form' && (
            <p className="alert info" role="status">
              {state.yamlNotice}
            </p>
          )}
          {mode === 'form' ? (
            <>
              <BasicSection form={form} limited={limited} allowedImages={allowedImages} />
              <RolloutSection form={form} />
              <ServiceSection form={form} />
              <TlsSection form={form} />
              <PlacementSection form={form} />
              <ContainerSection form={form} />
              <ConfigSection form={form} />
            </>
          ) : (
            <YamlMode
              text={state.yamlText}
              check={yaml}
              namespace={form.values.namespace}
              namespaceError={form.errorOf('metadata.namespace')}
              limited={limited}
              onText={(text) => dispatch({ type: 'editYaml', text })}
              onNamespace={(value) => form.edit('metadata.namespace', value)}
            />
          )}
          <div className="form-actions">
            <button type="submit" className="primary" disabled={state.submitting}>
              {state.submitting ? 'Creating…' : 'Create'}
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
