'use client';

import { DEFAULT_IMAGE } from '@ngx/nginx-api';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { plural } from '../lib/format';
import { createdAt, desiredOf, readyOf } from '../lib/nginx-view';
import { canWrite } from '../lib/session';
import { useLiveNginx } from '../lib/use-live-nginx';
import { Age } from './age';
import { Badge } from './badge';
import { ConditionBadges } from './condition-badges';
import { ConditionsTable } from './conditions-table';
import { DeleteDialog } from './delete-dialog';
import { EmptyState } from './empty-state';
import { ErrorState } from './error-state';
import { EventsPanel } from './events-panel';
import { ImageEditor } from './image-editor';
import { ManifestPanel } from './manifest-panel';
import { PodTimeline } from './pod-timeline';
import { PodsTable } from './pods-table';
import { ReplicaProgress } from './replica-progress';
import { ScaleControl } from './scale-control';
import { useReadySession } from './session-provider';
import { Skeleton } from './skeleton';

/** One Nginx: spec (scale, image), status, conditions, live pods with a timeline, events and the manifest. */
export function NginxDetail({ namespace, name }: { namespace: string; name: string }) {
  const { identity, api, live } = useReadySession();
  const router = useRouter();
  const { phase, nginx, pods, transitions, error, retry } = useLiveNginx(live, namespace, name);
  const [deleting, setDeleting] = useState(false);
  const writable = canWrite(identity, namespace);
  const auditHref = `/audit?namespace=${encodeURIComponent(namespace)}&name=${encodeURIComponent(name)}`;

  // Events follow changes of the object and of its pods: refetch when either moves.
  const revision = useMemo(
    () => `${nginx?.metadata.resourceVersion ?? ''}|${pods.map((p) => p.resourceVersion).join(',')}`,
    [nginx, pods],
  );

  const breadcrumbs = (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        <li>
          <Link href="/">Nginxes</Link>
        </li>
        <li>
          <Link href={`/?namespace=${encodeURIComponent(namespace)}`}>{namespace}</Link>
        </li>
        <li aria-current="page">{name}</li>
      </ol>
    </nav>
  );

  if (phase === 'loading')
    return (
      <>
        {breadcrumbs}
        <h1 style={{ marginBottom: '1rem' }}>{name}</h1>
        <div className="panel">
          <Skeleton rows={8} label={`Loading ${name}`} />
        </div>
      </>
    );
  if (phase === 'error')
    return (
      <>
        {breadcrumbs}
        <h1 style={{ marginBottom: '1rem' }}>{name}</h1>
        <div className="panel">
          <ErrorState
            title={`Could not watch ${name}`}
            message={error ? `${error.message} (${error.code} ${error.reason})` : 'The subscription failed.'}
            onRetry={retry}
          />
        </div>
      </>
    );
  if (!nginx)
    return (
      <>
        {breadcrumbs}
        <h1 style={{ marginBottom: '1rem' }}>{name}</h1>
        <div className="panel">
          <EmptyState
            title={`No Nginx ${name} in ${namespace}`}
            testId="nginx-not-found"
            action={
              <div className="inline-form" style={{ justifyContent: 'center' }}>
                <Link className="button primary" href={`/?namespace=${encodeURIComponent(namespace)}`}>
                  Back to the list
                </Link>
                <Link className="button" href={auditHref}>
                  Audit history
                </Link>
              </div>
            }
          >
            It does not exist, or it was just deleted. This page shows it as soon as it is created again.
          </EmptyState>
        </div>
      </>
    );

  const status = nginx.status ?? {};
  const generation = nginx.metadata.generation;
  const terminatingSince = nginx.metadata.deletionTimestamp as unknown as string | undefined;
  const running = pods.filter((p) => p.phase === 'Running' && !p.terminating).length;

  return (
    <>
      {breadcrumbs}
      <div className="page-head">
        <div>
          <h1 data-testid="nginx-title">{name}</h1>
          <div className="subtitle inline-form">
            <Badge tone="neutral">namespace: {namespace}</Badge>
            <ConditionBadges nginx={nginx} />
            {terminatingSince && <Badge tone="warning">Deleting</Badge>}
            <span className="muted small">
              created <Age since={createdAt(nginx)} /> ago
            </span>
          </div>
        </div>
        <div className="actions">
          <Link className="button" href={auditHref} data-testid="audit-link">
            Audit history
          </Link>
          {writable && (
            <button type="button" className="danger-outline" onClick={() => setDeleting(true)}>
              Delete…
            </button>
          )}
        </div>
      </div>

      <div className="grid-2">
        <section className="panel" aria-labelledby="spec-title">
          <div className="panel-head">
            <h2 id="spec-title">Spec</h2>
          </div>
          <div className="panel-body">
            <dl className="props">
              <dt>Replicas</dt>
              <dd data-testid="spec-replicas">
                {writable ? (
                  <ScaleControl api={api} namespace={namespace} name={name} replicas={desiredOf(nginx)} />
                ) : (
                  desiredOf(nginx)
                )}
              </dd>
              <dt>Image</dt>
              <dd data-testid="spec-image">
                {writable ? (
                  <ImageEditor api={api} namespace={namespace} name={name} image={nginx.spec.image} />
                ) : (
                  <code>{nginx.spec.image ?? DEFAULT_IMAGE}</code>
                )}
              </dd>
            </dl>
          </div>
        </section>
        <section className="panel" aria-labelledby="status-title">
          <div className="panel-head">
            <h2 id="status-title">Status</h2>
          </div>
          <div className="panel-body">
            <dl className="props" data-testid="status">
              <dt>Ready</dt>
              <dd>
                <ReplicaProgress ready={readyOf(nginx)} desired={desiredOf(nginx)} />
              </dd>
              <dt>Pods</dt>
              <dd>
                {status.replicas ?? 0} existing · {status.availableReplicas ?? 0} available
              </dd>
              <dt>Message</dt>
              <dd>{status.message ?? <span className="muted">none yet</span>}</dd>
              <dt>Generation</dt>
              <dd>
                {generation ?? '—'}{' '}
                {status.observedGeneration !== undefined && status.observedGeneration === generation ? (
                  <span className="muted small">(observed)</span>
                ) : (
                  <span className="muted small">(observed: {status.observedGeneration ?? 'not yet'})</span>
                )}
              </dd>
              <dt>UID</dt>
              <dd className="mono small">{nginx.metadata.uid}</dd>
            </dl>
          </div>
        </section>
      </div>

      <section className="panel" aria-labelledby="conditions-title">
        <div className="panel-head">
          <h2 id="conditions-title">Conditions</h2>
        </div>
        <ConditionsTable conditions={status.conditions ?? []} />
      </section>

      <section className="panel" aria-labelledby="pods-title" data-testid="pods-panel">
        <div className="panel-head">
          <h2 id="pods-title">Pods</h2>
          <span className="muted small" data-testid="pods-summary" aria-live="polite">
            {plural(pods.length, 'pod')} · {running} running
          </span>
          <span className="muted small actions">live</span>
        </div>
        {pods.length === 0 ? (
          <EmptyState title="No pods" testId="pods-empty">
            {desiredOf(nginx) === 0
              ? 'spec.replicas is 0. Scale up to start pods.'
              : 'The controller is creating them; they appear here as they are created.'}
          </EmptyState>
        ) : (
          <PodsTable pods={pods} />
        )}
        <div className="panel-body" style={{ borderTop: '1px solid var(--border)' }}>
          <h3 className="small muted" style={{ marginBottom: '0.4rem' }}>
            Recent pod transitions
          </h3>
          <PodTimeline transitions={transitions} />
        </div>
      </section>

      <section className="panel" aria-labelledby="events-title">
        <div className="panel-head">
          <h2 id="events-title">Events</h2>
        </div>
        <EventsPanel api={api} namespace={namespace} name={name} revision={revision} />
      </section>

      <ManifestPanel nginx={nginx} />

      {writable && (
        <DeleteDialog
          open={deleting}
          name={name}
          namespace={namespace}
          podCount={pods.length}
          onCancel={() => setDeleting(false)}
          onConfirm={async () => {
            await api.deleteNginx(namespace, name);
            setDeleting(false);
            router.push(`/?namespace=${encodeURIComponent(namespace)}`);
          }}
        />
      )}
    </>
  );
}
