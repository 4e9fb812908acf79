'use client';

import type { LivePod, Nginx } from '@ngx/nginx-api';
import { useMemo, useState } from 'react';
import { EmptyState } from '@/components/ui/empty-state';
import { BlueGreenPanel } from '@/features/rollout/bluegreen-panel';
import { CanarySteps } from '@/features/rollout/canary-steps';
import { PauseButton } from '@/features/rollout/pause-button';
import { PodTimeline } from '@/features/rollout/pod-timeline';
import { PodWhyDialog } from '@/features/rollout/pod-why-dialog';
import { PodsTable } from '@/features/rollout/pods-table';
import { RolloutProgress, RolloutStateBadge } from '@/features/rollout/rollout-progress';
import type { ApiClient } from '@/lib/api/api-client';
import { plural } from '@/lib/ui/format';
import { groupPodsByRevision } from '@/features/rollout/pod-groups';
import { blueGreenViewOf } from '@/features/rollout/bluegreen-view';
import { canaryViewOf } from '@/features/rollout/canary-view';
import { rolloutViewOf } from '@/features/rollout/rollout-view';
import type { PodTransition } from '@/lib/live/use-live-nginx';
import './rollout.css';

/**
 * The live rollout of one Nginx (props straight from `useLiveNginx`): its state, updated/available/desired, the
 * canary's steps (strategy Canary) or the blue-green's Services (strategy BlueGreen), the pods grouped by revision (the update revision first), the recent pod
 * transitions, and — only when `writable` — Pause rollout / Resume rollout and the canary's or blue-green's actions.
 */
export function RolloutPanel({
  nginx,
  pods,
  transitions,
  api,
  writable,
}: {
  nginx: Nginx;
  pods: LivePod[];
  transitions: PodTransition[];
  api: ApiClient;
  writable: boolean;
}) {
  const { namespace, name } = nginx.metadata as { namespace: string; name: string };
  const view = useMemo(() => rolloutViewOf(nginx, pods), [nginx, pods]);
  const canary = useMemo(() => canaryViewOf(nginx), [nginx]);
  const blueGreen = useMemo(() => blueGreenViewOf(nginx), [nginx]);
  const groups = useMemo(() => groupPodsByRevision(pods, view.updateRevision), [pods, view.updateRevision]);
  const running = pods.filter((p) => p.phase === 'Running' && !p.terminating).length;
  const [asking, setAsking] = useState<string | undefined>();

  return (
    <section className="panel" aria-labelledby="rollout-title" data-testid="rollout-panel">
      <div className="panel-head">
        <h2 id="rollout-title">Rollout</h2>
        <RolloutStateBadge view={view} />
        <span className="muted small">live</span>
        {writable && (
          <div className="actions">
            <PauseButton api={api} namespace={namespace} name={name} paused={nginx.spec.paused === true} />
          </div>
        )}
      </div>
      <div className="panel-body rollout-body">
        <RolloutProgress view={view} />
        {view.message && (
          <p className="small rollout-message" data-testid="rollout-message">
            {view.message}
          </p>
        )}
      </div>
      {canary && (
        <CanarySteps view={canary} api={api} namespace={namespace} name={name} writable={writable} />
      )}
      {blueGreen && (
        <BlueGreenPanel view={blueGreen} api={api} namespace={namespace} name={name} writable={writable} />
      )}
      <div data-testid="pods-panel" className="rollout-pods" role="group" aria-labelledby="pods-title">
        <div className="panel-head">
          <h3 id="pods-title">Pods</h3>
          <span className="muted small" data-testid="pods-summary" aria-live="polite">
            {plural(pods.length, 'pod')} · {running} running
            {groups.length > 1 && ` · ${plural(groups.length, 'revision')}`}
          </span>
        </div>
        {pods.length === 0 ? (
          <EmptyState title="No pods" testId="pods-empty">
            {view.desired === 0
              ? 'spec.replicas is 0. Scale up to start pods.'
              : 'The controller is creating them; they appear here as they are created.'}
          </EmptyState>
        ) : (
          <PodsTable groups={groups} onWhy={setAsking} />
        )}
        <div className="panel-body rollout-timeline">
          <h3 className="small muted">Recent pod transitions</h3>
          <PodTimeline transitions={transitions} />
        </div>
      </div>
      <PodWhyDialog
        api={api}
        namespace={namespace}
        name={name}
        pod={asking}
        onClose={() => setAsking(undefined)}
      />
    </section>
  );
}
