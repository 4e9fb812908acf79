import {
  CONDITION_PROGRESSING,
  REASON_CANARY_ABORTED,
  REASON_DEADLINE_EXCEEDED,
  REASON_INVALID_CONFIG,
  REASON_ROLLED_BACK,
  type Nginx,
  type NginxStatus,
} from '@ngx/nginx-api';
import type { NotificationEvent, NotificationEventType } from './notification-event.js';

/** Progressing's reasons (status False) that end a rollout in failure, and the event each is. */
const FAILURES: Readonly<Record<string, NotificationEventType>> = {
  [REASON_CANARY_ABORTED]: 'rollout-failed',
  [REASON_INVALID_CONFIG]: 'rollout-failed',
  [REASON_DEADLINE_EXCEEDED]: 'progress-deadline-exceeded',
  [REASON_ROLLED_BACK]: 'rolled-back',
};

const progressingOf = (status: NginxStatus | undefined) =>
  status?.conditions?.find((condition) => condition.type === CONDITION_PROGRESSING);

/**
 * The events the controller's status write from `old` to `next` tells (both the same Nginx; `old` undefined when
 * nothing was seen before, which tells nothing). Decided from the status alone, which only the leader writes, so
 * every instance watching decides the same events with the same keys:
 * - rollout-started: status.updateRevision moved to a revision the pods do not all run yet;
 * - rollout-completed: status.currentRevision became the update revision (every pod there and available);
 * - rollout-failed, rolled-back, progress-deadline-exceeded: Progressing turned False with CanaryAborted or
 *   InvalidConfig, RolledBack, or ProgressDeadlineExceeded;
 * - canary-paused: the canary's phase became Paused (awaiting promotion);
 * - analysis-failed: a canary analysis run newly Failed (or Error).
 */
export function notificationEvents(old: Nginx | undefined, next: Nginx): NotificationEvent[] {
  if (!old?.status || !next.status) return [];
  const before = old.status;
  const after = next.status;
  const revision = after.updateRevision;
  const generation = after.observedGeneration ?? next.metadata.generation ?? 0;
  const events: NotificationEvent[] = [];
  const add = (type: NotificationEventType, occurrence: string, summary: string, at?: string) =>
    events.push(event(next, type, occurrence, summary, at));

  if (revision && revision !== before.updateRevision && revision !== after.currentRevision)
    add('rollout-started', `${revision}/${generation}`, `Rolling out revision ${revision}.`);

  if (revision && after.currentRevision === revision && before.currentRevision !== revision)
    add('rollout-completed', `${revision}/${generation}`, `Revision ${revision} is rolled out.`);

  const progressing = progressingOf(after);
  const earlier = progressingOf(before);
  const failure = progressing?.status === 'False' ? FAILURES[progressing.reason] : undefined;
  if (failure && (earlier?.status !== 'False' || earlier.reason !== progressing!.reason))
    add(
      failure,
      `${revision}/${generation}/${progressing!.lastTransitionTime}`,
      progressing!.message,
      progressing!.lastTransitionTime,
    );

  const canary = after.canary;
  if (
    canary?.phase === 'Paused' &&
    (before.canary?.phase !== 'Paused' ||
      before.canary.step !== canary.step ||
      before.canary.revision !== canary.revision)
  )
    add(
      'canary-paused',
      `${canary.revision}/${generation}/${canary.step}`,
      `Canary of ${canary.revision} paused at step ${canary.step + 1} (${canary.weight}%), awaiting promotion.${canary.message ? ` ${canary.message}` : ''}`,
      canary.stepStartedAt,
    );

  const failedBefore = new Set((before.canary?.analysisRuns ?? []).filter(failed).map((run) => run.name));
  for (const run of canary?.analysisRuns ?? [])
    if (failed(run) && !failedBefore.has(run.name))
      add(
        'analysis-failed',
        run.name,
        `Analysis ${run.templateName} of step ${run.step + 1} ${run.phase === 'Error' ? 'could not measure' : 'failed'}: ${run.measurements.at(-1)?.message ?? `${run.measurements.length} measurements`}`,
        run.measurements.at(-1)?.at,
      );
  return events;
}

/** When the rollout last moved or changed state: Progressing's lastUpdateTime, else its transition. */
function lastProgress(status: NginxStatus | undefined): string | undefined {
  const progressing = progressingOf(status);
  return progressing?.lastUpdateTime ?? progressing?.lastTransitionTime;
}

const failed = (run: { phase: string }) => run.phase === 'Failed' || run.phase === 'Error';

/** The deletion of `nginx`, seen at `now` (ISO). */
export function deletionEvent(nginx: Nginx, now: string): NotificationEvent {
  return event(
    nginx,
    'nginx-deleted',
    'deleted',
    `Nginx ${nginx.metadata.namespace}/${nginx.metadata.name} was deleted.`,
    now,
  );
}

function event(
  nginx: Nginx,
  type: NotificationEventType,
  occurrence: string,
  summary: string,
  at?: string,
): NotificationEvent {
  const uid = nginx.metadata.uid ?? `${nginx.metadata.namespace}/${nginx.metadata.name}`;
  const revision = nginx.status?.updateRevision;
  return {
    type,
    key: `${uid}/${type}/${occurrence}`,
    namespace: nginx.metadata.namespace ?? '',
    name: nginx.metadata.name ?? '',
    uid,
    at: at ?? lastProgress(nginx.status) ?? '',
    ...(revision ? { revision } : {}),
    summary,
    labels: nginx.metadata.labels ?? {},
  };
}
