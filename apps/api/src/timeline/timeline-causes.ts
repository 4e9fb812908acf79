import type { TimelineItem } from '@ngx/nginx-api';
import type { AuditPrismaClient } from '../audit/prisma-client.js';
import type { TimelineFilters } from './timeline-params.js';

/**
 * Links each entry of a page to the entries that caused it (`causes`, their ids), where the trail knows:
 * - a reconcile → the change that produced the generation it acted for (producingChange), and
 *   for one a pod's going woke that replaced it, the latest pod that went (terminating or deleted) in the
 *   REPLACEMENT_WINDOW_MS before it;
 * - a pod created → the reconcile that created it;
 * - a pod terminating or deleted → the reconcile that deleted it, else whoever first deleted or evicted it (a pod
 *   write from kube-apiserver's audit; a kubelet's final delete comes after it);
 * - an Event about the Nginx itself (the controller's SuccessfulCreate, FailedCreate — a quota's refusal —, …)
 *   and a condition change → the latest reconcile that started by then (Events carry whole seconds, so up to a
 *   second after), within REPLACEMENT_WINDOW_MS: the sync that reported it.
 * Causes may lie outside the page (older): they are looked up, a few queries a page whatever its size.
 */
export async function linkCauses(
  items: readonly TimelineItem[],
  filters: TimelineFilters,
  prisma: () => Promise<AuditPrismaClient>,
): Promise<void> {
  const reconciles = items.filter((item) => item.reconcile?.uid && item.reconcile.generation !== null);
  const podsCreated = items.filter((item) => item.kind === 'pod' && item.evidence?.what === 'created');
  const podsGone = items.filter(
    (item) => item.kind === 'pod' && ['terminating', 'deleted'].includes(item.evidence?.what ?? ''),
  );
  const reported = items.filter(
    (item) => (item.kind === 'event' && !item.evidence?.pod) || item.kind === 'condition',
  );
  if (reconciles.length + podsCreated.length + podsGone.length + reported.length === 0) return;
  const client = await prisma();
  await linkReporters(reported, filters, client);
  await linkReplacements(
    reconciles.filter(
      (item) =>
        item.reconcile!.trigger === 'pod-event' &&
        item.reconcile!.actions.some((action) => action.kind === 'create'),
    ),
    filters,
    client,
  );

  for (const item of reconciles) {
    const producer = await producingChange(item, client);
    if (producer !== undefined) item.causes.push(`change/${producer}`);
  }

  const pods = [...new Set([...podsCreated, ...podsGone].map((item) => item.evidence!.pod!).filter(Boolean))];
  if (pods.length === 0) return;
  const [actors, acting] = await Promise.all([
    podsGone.length === 0
      ? []
      : client.timelineEntry.findMany({
          where: {
            namespace: filters.namespace,
            kind: 'pod-write',
            what: { in: ['delete', 'evict'] },
            type: 'Success',
            pod: { in: podsGone.map((item) => item.evidence!.pod!) },
          },
          select: { id: true, pod: true },
          orderBy: [{ at: 'asc' }, { id: 'asc' }],
        }),
    client.reconcileRecord.findMany({
      where: {
        namespace: filters.namespace,
        name: filters.name,
        OR: pods.map((pod) => ({ actions: { contains: `"pod":${JSON.stringify(pod)}` } })),
      },
      select: { id: true, actions: true },
      orderBy: { id: 'desc' },
    }),
  ]);
  const reconcileActing = (pod: string, kind: 'create' | 'delete') =>
    acting.find((row) => actionsOf(row.actions).some((action) => action.kind === kind && action.pod === pod));
  for (const item of podsCreated) {
    const creator = reconcileActing(item.evidence!.pod!, 'create');
    if (creator) item.causes.push(`reconcile/${creator.id}`);
  }
  for (const item of podsGone) {
    const pod = item.evidence!.pod!;
    // The controller's own deletes are in its reconcile records (not pod writes); a kubelet's final delete of a
    // pod the controller deleted is a pod write too, so the reconcile comes first.
    const deleter = reconcileActing(pod, 'delete');
    const person = actors.find((row) => row.pod === pod);
    if (deleter) item.causes.push(`reconcile/${deleter.id}`);
    else if (person) item.causes.push(`pod-write/${person.id}`);
  }
}

/** How long after the reconcile it woke a change may have been recorded. */
const RECORDED_AFTER_MS = 5_000;

/** How long before a reconcile a pod's going counts as what woke it to replace the pod. */
const REPLACEMENT_WINDOW_MS = 30_000;

/**
 * The change that produced the generation a reconcile acted for: the one recorded with that generation; else
 * (a /scale write's answer is a Scale, which names no generation) the latest scale of the Nginx before it.
 */
async function producingChange(item: TimelineItem, client: AuditPrismaClient): Promise<number | undefined> {
  const { uid, generation, startedAt } = item.reconcile!;
  const recent = await client.changeRecord.findMany({
    where: {
      uid,
      completes: null,
      code: { gte: 200, lt: 300 },
      // The control plane records a write of its own door once the answer is sent: after the reconcile it woke.
      at: { lte: new Date(Date.parse(startedAt) + RECORDED_AFTER_MS) },
      OR: [{ generation }, { generation: null, subresource: 'scale' }],
    },
    orderBy: [{ at: 'desc' }, { id: 'desc' }],
    select: { id: true, generation: true },
    take: 5,
  });
  return (recent.find((row) => row.generation === generation) ?? recent[0])?.id;
}

/** Links Events about the Nginx and condition changes to the reconcile that reported them. */
async function linkReporters(
  items: readonly TimelineItem[],
  filters: TimelineFilters,
  client: AuditPrismaClient,
): Promise<void> {
  for (const item of items) {
    const at = new Date(item.at);
    const reporter = await client.reconcileRecord.findFirst({
      where: {
        namespace: filters.namespace,
        name: filters.name,
        startedAt: {
          lte: new Date(at.getTime() + (item.kind === 'event' ? 1_000 : 0)),
          gte: new Date(at.getTime() - REPLACEMENT_WINDOW_MS),
        },
      },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    if (reporter) item.causes.push(`reconcile/${reporter.id}`);
  }
}

/** Links reconciles that replaced pods to the latest pod that went before each. */
async function linkReplacements(
  reconciles: readonly TimelineItem[],
  filters: TimelineFilters,
  client: AuditPrismaClient,
): Promise<void> {
  for (const item of reconciles) {
    const started = new Date(item.reconcile!.startedAt);
    const gone = await client.timelineEntry.findFirst({
      where: {
        namespace: filters.namespace,
        nginx: filters.name,
        kind: 'pod',
        what: { in: ['terminating', 'deleted'] },
        at: { lte: started, gte: new Date(started.getTime() - REPLACEMENT_WINDOW_MS) },
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      select: { id: true },
    });
    if (gone) item.causes.push(`pod/${gone.id}`);
  }
}

function actionsOf(text: string): { kind?: string; pod?: string }[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as { kind?: string; pod?: string }[]) : [];
  } catch {
    return [];
  }
}
