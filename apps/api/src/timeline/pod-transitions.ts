import type { V1Pod } from '@kubernetes/client-node';
import type { TimelineEntryRow } from '../audit/timeline-entry.js';

/** The Nginx a pod belongs to (its label), as the informer sees it. */
const NGINX_LABEL = 'mycompany.com/nginx';

/** What can happen to a pod, in the order it usually does. */
export const POD_TRANSITIONS = [
  'created',
  'scheduled',
  'running',
  'ready',
  'unready',
  'terminating',
  'deleted',
] as const;
export type PodTransition = (typeof POD_TRANSITIONS)[number];

/**
 * The transitions between two states of one pod as the informer saw them (`previous` undefined: it was just
 * created; `current` undefined: it is gone): scheduled (a node assigned), running, ready and unready (the Ready
 * condition flipped, with its reason and message), terminating (a deletion timestamp), deleted. Each is a timeline
 * entry of the pod's Nginx, stored once per pod and transition (a ready pod that turns unready and ready again
 * keeps each flip by the time it flipped). `at` is when the informer saw it. Pure; none for a pod of no Nginx.
 */
export function podTransitions(
  previous: V1Pod | undefined,
  current: V1Pod | undefined,
  at: Date,
): TimelineEntryRow[] {
  const pod = current ?? previous;
  const nginx = pod?.metadata?.labels?.[NGINX_LABEL];
  const namespace = pod?.metadata?.namespace;
  const name = pod?.metadata?.name;
  const uid = pod?.metadata?.uid;
  if (!pod || !nginx || !namespace || !name || !uid) return [];
  const owner = pod.metadata?.ownerReferences?.find((reference) => reference.controller);
  const entry = (what: PodTransition, extra: Partial<TimelineEntryRow> = {}): TimelineEntryRow => ({
    at,
    namespace,
    nginx,
    nginxUid: owner?.uid ?? null,
    kind: 'pod',
    what,
    pod: name,
    podUid: uid,
    node: pod.spec?.nodeName ?? null,
    ...extra,
    dedupeKey: `pod:${uid}:${what}${flips(what) ? `@${readySince(current) ?? at.toISOString()}` : ''}`,
  });
  if (!current) return [entry('deleted')];
  const entries: TimelineEntryRow[] = [];
  if (!previous) entries.push(entry('created'));
  if (current.spec?.nodeName && !previous?.spec?.nodeName) entries.push(entry('scheduled'));
  if (current.status?.phase === 'Running' && previous?.status?.phase !== 'Running')
    entries.push(entry('running'));
  const wasReady = isReady(previous);
  const ready = isReady(current);
  if (ready !== wasReady && (ready || previous !== undefined)) {
    const condition = readyCondition(current);
    entries.push(
      entry(ready ? 'ready' : 'unready', {
        reason: condition?.reason ?? null,
        message: condition?.message ?? null,
      }),
    );
  }
  if (current.metadata?.deletionTimestamp && !previous?.metadata?.deletionTimestamp)
    entries.push(entry('terminating'));
  return entries;
}

/** Ready and unready may happen many times to one pod; the others once. */
function flips(what: PodTransition): boolean {
  return what === 'ready' || what === 'unready';
}

function readyCondition(pod: V1Pod | undefined) {
  return pod?.status?.conditions?.find((condition) => condition.type === 'Ready');
}

function isReady(pod: V1Pod | undefined): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** When the Ready condition last changed, which tells one flip from the next. */
function readySince(pod: V1Pod | undefined): string | undefined {
  const time = readyCondition(pod)?.lastTransitionTime as unknown;
  if (time === undefined || time === null) return undefined;
  return time instanceof Date ? time.toISOString() : String(time);
}
