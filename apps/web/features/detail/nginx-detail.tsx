'use client';

import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { ConfigPanel } from '@/features/config-editor/config-panel';
import { BudgetPanel } from '@/features/detail/budget-panel';
import { ConditionsTable } from '@/features/detail/conditions-table';
import { DeleteDialog } from '@/features/detail/delete-dialog';
import { DetailHead } from '@/features/detail/detail-head';
import { Breadcrumbs, DetailError, DetailLoading, DetailNotFound } from '@/features/detail/detail-states';
import { EventsPanel } from '@/features/detail/events-panel';
import { ManifestPanel } from '@/features/detail/manifest-panel';
import { ServicePanel } from '@/features/detail/service-panel';
import { SpecPanel } from '@/features/detail/spec-panel';
import { StatusPanel } from '@/features/detail/status-panel';
import { TimelinePanel } from '@/features/detail/timeline-panel';
import { RevisionHistory } from '@/features/revisions/revision-history';
import { RolloutPanel } from '@/features/rollout/rollout-panel';
import { useReadySession } from '@/components/shell/session-provider';
import { EditYamlButton } from '@/features/yaml-edit/edit-yaml-button';
import { writeRefusal } from '@/lib/session/permissions';
import { useLiveNginx } from '@/lib/live/use-live-nginx';
import './detail.css';

/**
 * One Nginx, live: spec (scale, image), status, the rollout with its pods by revision, Service and disruption
 * budget, conditions, events and the manifest. Write controls appear only for someone who may write in the
 * namespace; anyone else sees why once, in the page head.
 */
export function NginxDetail({ namespace, name }: { namespace: string; name: string }) {
  const { identity, api, live } = useReadySession();
  const router = useRouter();
  const { phase, nginx, pods, transitions, error, retry } = useLiveNginx(live, namespace, name);
  const [deleting, setDeleting] = useState(false);
  const refusal = writeRefusal(identity, namespace);
  const writable = refusal === null;

  // Events follow changes of the object and of its pods: refetch when either moves.
  const revision = useMemo(
    () => `${nginx?.metadata.resourceVersion ?? ''}|${pods.map((p) => p.resourceVersion).join(',')}`,
    [nginx, pods],
  );

  if (phase === 'loading') return <DetailLoading namespace={namespace} name={name} />;
  if (phase === 'error')
    return <DetailError namespace={namespace} name={name} error={error} refusal={refusal} onRetry={retry} />;
  if (!nginx) return <DetailNotFound namespace={namespace} name={name} />;

  return (
    <>
      <Breadcrumbs namespace={namespace} name={name} />
      <DetailHead
        nginx={nginx}
        refusal={refusal}
        actions={
          <>
            <EditYamlButton nginx={nginx} writable={writable} />
            <button type="button" className="danger-outline" onClick={() => setDeleting(true)}>
              Delete…
            </button>
          </>
        }
      />

      <div className="grid-2">
        <SpecPanel nginx={nginx} api={api} writable={writable} />
        <StatusPanel nginx={nginx} />
      </div>

      <RolloutPanel nginx={nginx} pods={pods} transitions={transitions} api={api} writable={writable} />

      <RevisionHistory nginx={nginx} writable={writable} refusal={refusal} />

      <ConfigPanel nginx={nginx} writable={writable} refusal={refusal} />

      <div className="grid-2">
        <ServicePanel nginx={nginx} />
        <BudgetPanel nginx={nginx} />
      </div>

      <section className="panel" aria-labelledby="conditions-title">
        <div className="panel-head">
          <h2 id="conditions-title">Conditions</h2>
        </div>
        <ConditionsTable conditions={nginx.status?.conditions ?? []} />
      </section>

      <section className="panel" aria-labelledby="timeline-title" id="timeline" data-testid="timeline-panel">
        <div className="panel-head">
          <h2 id="timeline-title">Timeline</h2>
          <span className="muted small">live · who changed what, and what followed</span>
        </div>
        <div className="panel-body">
          <TimelinePanel api={api} namespace={namespace} name={name} revision={revision} />
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
          api={api}
          name={name}
          namespace={namespace}
          podCount={pods.length}
          onCancel={() => setDeleting(false)}
          onDeleted={() => {
            setDeleting(false);
            router.push(`/?namespace=${encodeURIComponent(namespace)}`);
          }}
        />
      )}
    </>
  );
}
