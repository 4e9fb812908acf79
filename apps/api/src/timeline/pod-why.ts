import type { TimelineItem } from '@ngx/nginx-api';
import type { AuditPrismaClient } from '../audit/prisma-client.js';
import { linkCauses } from './timeline-causes.js';
import { changeEntry, evidenceEntry, reconcileEntry, type TimelineReader } from './timeline-reader.js';

/** Longest chain followed (each step is a few queries). */
const MAX_STEPS = 12;

export interface PodWhy {
  /** From the pod's own entry (its deletion, or its creation) back to the first cause the trail knows. */
  chain: TimelineItem[];
  /** Who the chain ends at: a change's actor, or the user who deleted or evicted a pod; null when not known. */
  actor: string | null;
  /** The door of that change (a pod write is always kube-apiserver's); null when not known. */
  door: string | null;
}

/**
 * Why a pod of an Nginx exists or went: from its latest entry (deleted or terminating when it went within the
 * retention, else created) along each entry's first cause (timeline-causes.ts) to the change or the person at the
 * root. Undefined when the trail has no entry of the pod.
 */
export async function podWhy(
  reader: TimelineReader,
  prisma: () => Promise<AuditPrismaClient>,
  target: { namespace: string; name: string; pod: string },
): Promise<PodWhy | undefined> {
  const client = await prisma();
  const filters = { namespace: target.namespace, name: target.name };
  const start =
    (await client.timelineEntry.findFirst({
      where: { ...podOf(target), kind: 'pod', what: { in: ['deleted', 'terminating'] } },
      orderBy: [{ at: 'asc' }, { id: 'asc' }],
    })) ??
    (await client.timelineEntry.findFirst({
      where: { ...podOf(target), kind: 'pod', what: 'created' },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
    }));
  if (!start) return undefined;
  const chain: TimelineItem[] = [];
  let current: TimelineItem | undefined = strip(evidenceEntry(start));
  const seen = new Set<string>();
  while (current && chain.length < MAX_STEPS && !seen.has(current.id)) {
    seen.add(current.id);
    await linkCauses([current], filters, prisma);
    chain.push(current);
    if (current.kind === 'change' || current.kind === 'pod-write') break;
    const cause: string | undefined = current.causes[0];
    current = cause ? await itemById(reader, client, cause) : undefined;
  }
  const root = chain[chain.length - 1];
  if (root?.kind === 'change')
    return { chain, actor: root.change?.actor || null, door: root.change?.door ?? null };
  if (root?.kind === 'pod-write')
    return { chain, actor: root.evidence?.actor ?? null, door: 'kube-apiserver' };
  return { chain, actor: null, door: null };
}

function podOf(target: { namespace: string; name: string; pod: string }) {
  return { namespace: target.namespace, nginx: target.name, pod: target.pod };
}

async function itemById(
  reader: TimelineReader,
  client: AuditPrismaClient,
  id: string,
): Promise<TimelineItem | undefined> {
  const [kind, number] = id.split('/');
  const rowId = Number(number);
  if (!Number.isSafeInteger(rowId)) return undefined;
  if (kind === 'change') {
    const [change] = await reader.audit.changeItems({ id: rowId }, 1);
    return change ? strip(changeEntry(change)) : undefined;
  }
  if (kind === 'reconcile') {
    const [reconcile] = await reader.audit.reconcileItems({ id: rowId }, 1);
    return reconcile ? strip(reconcileEntry(reconcile)) : undefined;
  }
  const row = await client.timelineEntry.findUnique({ where: { id: rowId } });
  return row ? strip(evidenceEntry(row)) : undefined;
}

function strip(item: TimelineItem & { rowId: number }): TimelineItem {
  const { rowId: _rowId, ...rest } = item;
  return rest;
}
