import type { TimelineEntryRow } from '../audit/timeline-entry.js';
import { auditIdOrigin } from '../audit/request-audit-id.js';
import type { AuditEvent } from './audit-event.js';
import { dedupeKey, isDryRun } from './nginx-change.js';
import { isWatched } from '../config/watched-namespaces.js';

const POD_WRITES: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete']);

export interface PodWriteContext {
  /** The control plane's own user as kube-apiserver knows it. */
  self: string;
  /** Only writes in these namespaces are kept (the process watches no other); undefined: all. */
  watchNamespaces: readonly string[] | undefined;
  /** The Nginx a pod belongs to (or belonged to, shortly after it was deleted). */
  podOwner(namespace: string, pod: string): { nginx: string; nginxUid?: string } | undefined;
}

/**
 * A write of one of an Nginx's pods by someone other than its controller (a person's `kubectl delete pod`, an
 * eviction, the garbage collector), from kube-apiserver's audit event (Metadata level: who, what, the outcome),
 * as a timeline entry of that Nginx: what the timeline answers "why did this pod go?" with. None for the
 * controller's own writes (reconcile records have them), other pods, reads and dry runs. Pure.
 */
export function podWriteEntry(event: AuditEvent, context: PodWriteContext): TimelineEntryRow | undefined {
  const ref = event.objectRef;
  if (ref?.resource !== 'pods' || (ref.apiGroup ?? '') !== '' || !ref.namespace || !ref.name)
    return undefined;
  const eviction = ref.subresource === 'eviction' && event.verb === 'create';
  if (!eviction && (ref.subresource || !POD_WRITES.has(event.verb))) return undefined;
  if (event.stage !== 'ResponseComplete' || isDryRun(event.requestURI)) return undefined;
  if (!isWatched(context.watchNamespaces, ref.namespace)) return undefined;
  if (event.user.username === context.self && auditIdOrigin(event.auditID) === 'controller') return undefined;
  const owner = context.podOwner(ref.namespace, ref.name);
  if (!owner) return undefined;
  const code = event.responseStatus?.code ?? 0;
  const ok = code >= 200 && code < 300;
  const actor = event.impersonatedUser?.username ?? event.user.username;
  return {
    at: new Date(event.stageTimestamp),
    namespace: ref.namespace,
    nginx: owner.nginx,
    nginxUid: owner.nginxUid ?? null,
    kind: 'pod-write',
    what: eviction ? 'evict' : event.verb,
    pod: ref.name,
    podUid: ref.uid ?? null,
    reason: ok ? null : (event.responseStatus?.reason ?? String(code)),
    message: ok ? null : (event.responseStatus?.message ?? null),
    actor,
    type: ok ? 'Success' : 'Failure',
    dedupeKey: dedupeKey(event),
  };
}
