import type { CoreV1Event } from '@kubernetes/client-node';
import { NGINX_GROUP, NGINX_KIND } from '@ngx/nginx-api';
import type { TimelineEntryRow } from '../audit/timeline-entry.js';

/** The Nginx a pod belongs to, by the pod's namespace and name (the informer's, or one it saw recently). */
export type PodOwner = (namespace: string, pod: string) => { nginx: string; nginxUid?: string } | undefined;

/**
 * A Kubernetes Event (core/v1, which also carries events.k8s.io Events) as a timeline entry of the Nginx it is
 * about, directly or through one of its pods; undefined for any other object. A repeated Event (a growing count,
 * or an events.k8s.io series) is one entry per count seen, keyed by the Event's uid and count, so the timeline
 * keeps each repetition's time and the latest count once, however often the informer sees it. Pure.
 */
export function eventEntry(
  event: CoreV1Event,
  podOwner: PodOwner,
  /** When it happened, if known more precisely than its timestamps (our own Events: to the millisecond). */
  happenedAt?: Date,
): TimelineEntryRow | undefined {
  const involved = event.involvedObject;
  const namespace = involved?.namespace ?? event.metadata?.namespace;
  const uid = event.metadata?.uid;
  if (!involved?.name || !namespace || !uid) return undefined;
  let about: { nginx: string; nginxUid?: string; pod?: string; podUid?: string } | undefined;
  if (involved.kind === NGINX_KIND && (involved.apiVersion ?? '').startsWith(`${NGINX_GROUP}/`))
    about = { nginx: involved.name, nginxUid: involved.uid };
  else if (involved.kind === 'Pod' && (involved.apiVersion ?? 'v1') === 'v1') {
    const owner = podOwner(namespace, involved.name);
    if (owner) about = { ...owner, pod: involved.name, podUid: involved.uid };
  }
  if (!about) return undefined;
  const count = event.series?.count ?? event.count ?? 1;
  const at =
    happenedAt ??
    time(event.series?.lastObservedTime) ??
    time(event.lastTimestamp) ??
    time(event.eventTime) ??
    time(event.metadata?.creationTimestamp) ??
    new Date();
  return {
    at,
    namespace,
    nginx: about.nginx,
    nginxUid: about.nginxUid ?? null,
    kind: 'event',
    what: event.reason ?? '',
    pod: about.pod ?? null,
    podUid: about.podUid ?? null,
    node: event.source?.host ?? null,
    reason: event.reason ?? null,
    message: event.message ?? null,
    actor: event.reportingComponent || event.source?.component || null,
    type: event.type ?? 'Normal',
    count,
    dedupeKey: `event:${uid}:${count}`,
  };
}

/**
 * The fields of an Event that eventEntry reads (and the informer keys it by), for the Events informer's transform:
 * its cache then holds a few hundred bytes per Event instead of the whole object with its managed fields.
 */
export function eventEntryFields(event: CoreV1Event): CoreV1Event {
  const { metadata, involvedObject, reason, message, source, reportingComponent, type, count, series } =
    event;
  return {
    metadata: {
      name: metadata?.name,
      namespace: metadata?.namespace,
      uid: metadata?.uid,
      resourceVersion: metadata?.resourceVersion,
      creationTimestamp: metadata?.creationTimestamp,
    },
    involvedObject: {
      kind: involvedObject?.kind,
      apiVersion: involvedObject?.apiVersion,
      namespace: involvedObject?.namespace,
      name: involvedObject?.name,
      uid: involvedObject?.uid,
    },
    reason,
    message,
    source,
    reportingComponent,
    type,
    count,
    series,
    lastTimestamp: event.lastTimestamp,
    eventTime: event.eventTime,
  };
}

function time(value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? undefined : date;
}
