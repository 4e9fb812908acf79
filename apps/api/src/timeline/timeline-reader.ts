import type { ChangeItem, ReconcileItem, TimelineItem, TimelineKind } from '@ngx/nginx-api';
import type { Prisma, TimelineEntry } from '../../generated/prisma-sqlite/index.js';
import { AuditReader } from '../audit/audit-reader.js';
import type { AuditPrismaClient } from '../audit/prisma-client.js';
import { SOURCE_RANKS, type TimelineFilters, type TimelinePosition } from './timeline-params.js';
import { linkCauses } from './timeline-causes.js';

/** The kinds kept as evidence (the TimelineEntry table). */
const EVIDENCE_KINDS: readonly TimelineKind[] = ['event', 'pod', 'condition', 'pod-write'];

export interface TimelinePage {
  items: TimelineItem[];
  /** The position of the last item when more follow. */
  next?: TimelinePosition;
}

/**
 * Reads an Nginx's timeline, newest first: its changes (any door, folded), its reconciles and its kept evidence,
 * merged in (time, source, id) order, so a `continue` position resumes exactly after the last entry of a page while
 * new entries arrive. Each store is asked for one page past the position (at most `limit + 1` rows each); the
 * merge keeps the newest `limit`. Then each entry's causes are linked (timeline-causes.ts).
 */
export class TimelineReader {
  readonly audit: AuditReader;

  constructor(private readonly prisma: () => Promise<AuditPrismaClient>) {
    this.audit = new AuditReader(prisma);
  }

  async page(filters: TimelineFilters, limit: number, after?: TimelinePosition): Promise<TimelinePage> {
    const wanted = (kind: TimelineKind) => !filters.kinds || filters.kinds.includes(kind);
    const take = limit + 1;
    const [changes, reconciles, evidence] = await Promise.all([
      wanted('change') ? this.changes(filters, take, after) : [],
      wanted('reconcile') ? this.reconciles(filters, take, after) : [],
      EVIDENCE_KINDS.some(wanted) ? this.evidence(filters, take, after) : [],
    ]);
    const merged = [...changes, ...reconciles, ...evidence].sort(newestFirst);
    const items = merged.slice(0, limit);
    const last = items[items.length - 1];
    await linkCauses(
      items.map(({ item }) => item),
      filters,
      this.prisma,
    );
    return {
      items: items.map(({ item }) => item),
      ...(merged.length > limit && last ? { next: last.position } : {}),
    };
  }

  private async changes(
    filters: TimelineFilters,
    take: number,
    after?: TimelinePosition,
  ): Promise<Positioned[]> {
    const where: Prisma.ChangeRecordWhereInput = {
      AND: [
        { namespace: filters.namespace, name: filters.name, ...(filters.uid ? { uid: filters.uid } : {}) },
        window('at', filters),
        after ? afterPosition('at', SOURCE_RANKS.change, after) : {},
      ],
    };
    return (await this.audit.changeItems(where, take)).map((change) =>
      positioned(changeEntry(change), SOURCE_RANKS.change),
    );
  }

  private async reconciles(
    filters: TimelineFilters,
    take: number,
    after?: TimelinePosition,
  ): Promise<Positioned[]> {
    const where: Prisma.ReconcileRecordWhereInput = {
      AND: [
        { namespace: filters.namespace, name: filters.name, ...(filters.uid ? { uid: filters.uid } : {}) },
        window('startedAt', filters),
        after ? afterPosition('startedAt', SOURCE_RANKS.reconcile, after) : {},
      ],
    };
    return (await this.audit.reconcileItems(where, take)).map((reconcile) =>
      positioned(reconcileEntry(reconcile), SOURCE_RANKS.reconcile),
    );
  }

  private async evidence(
    filters: TimelineFilters,
    take: number,
    after?: TimelinePosition,
  ): Promise<Positioned[]> {
    const kinds = EVIDENCE_KINDS.filter((kind) => !filters.kinds || filters.kinds.includes(kind));
    const rows = await (
      await this.prisma()
    ).timelineEntry.findMany({
      where: {
        AND: [
          {
            namespace: filters.namespace,
            nginx: filters.name,
            kind: { in: [...kinds] },
            ...(filters.uid ? { nginxUid: filters.uid } : {}),
          },
          window('at', filters),
          after ? afterPosition('at', SOURCE_RANKS.evidence, after) : {},
        ],
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take,
    });
    return rows.map((row) => positioned(evidenceEntry(row), SOURCE_RANKS.evidence));
  }
}

/** An item with its place in the merged order. */
interface Positioned {
  item: TimelineItem;
  position: TimelinePosition;
}

function positioned(item: TimelineItem & { rowId: number }, rank: number): Positioned {
  const { rowId, ...rest } = item;
  return { item: rest, position: { at: new Date(item.at), rank, id: rowId } };
}

function newestFirst(a: Positioned, b: Positioned): number {
  return (
    b.position.at.getTime() - a.position.at.getTime() ||
    b.position.rank - a.position.rank ||
    b.position.id - a.position.id
  );
}

export function changeEntry(change: ChangeItem): TimelineItem & { rowId: number } {
  return {
    id: `change/${change.id}`,
    kind: 'change',
    at: change.at,
    nginxUid: change.uid,
    causes: [],
    change,
    rowId: change.id,
  };
}

export function reconcileEntry(reconcile: ReconcileItem): TimelineItem & { rowId: number } {
  return {
    id: `reconcile/${reconcile.id}`,
    kind: 'reconcile',
    at: reconcile.startedAt,
    nginxUid: reconcile.uid,
    causes: [],
    reconcile,
    rowId: reconcile.id,
  };
}

export function evidenceEntry(row: TimelineEntry): TimelineItem & { rowId: number } {
  return {
    id: `${row.kind}/${row.id}`,
    kind: row.kind as TimelineKind,
    at: row.at.toISOString(),
    nginxUid: row.nginxUid,
    causes: [],
    evidence: {
      what: row.what,
      pod: row.pod,
      podUid: row.podUid,
      node: row.node,
      reason: row.reason,
      message: row.message,
      actor: row.actor,
      type: row.type,
      count: row.count,
    },
    rowId: row.id,
  };
}

/** `since <= time < until`, as a Prisma filter of `field`. */
function window<Field extends string>(field: Field, { since, until }: TimelineFilters) {
  if (!since && !until) return {};
  return { [field]: { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) } } as Record<
    Field,
    Prisma.DateTimeFilter
  >;
}

/**
 * Rows of a store of rank `rank` strictly after `after` in (time desc, rank desc, id desc) order: a store ranked
 * below the position's takes its own rows of the same millisecond, one ranked above does not, and the position's
 * own store resumes by id.
 */
function afterPosition<Field extends string>(field: Field, rank: number, after: TimelinePosition) {
  if (rank < after.rank) return { [field]: { lte: after.at } } as Record<Field, Prisma.DateTimeFilter>;
  if (rank > after.rank) return { [field]: { lt: after.at } } as Record<Field, Prisma.DateTimeFilter>;
  return { OR: [{ [field]: { lt: after.at } }, { [field]: after.at, id: { lt: after.id } }] };
}
