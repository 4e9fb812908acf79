import type { ChangeItem, ReconcileItem, TimelineItem, TimelineKind } from '@ngx/nginx-api';
import type { Prisma, TimelineEntry } from '../../generated/prisma-sqlite/index.js';
import { ANY_NGINX } from '../audit/audit-gap.js';
import { reconcileItem } from '../audit/audit-items.js';
import { AuditReader } from '../audit/audit-reader.js';
import type { AuditStream } from '../audit/chain/audit-chain.js';
import type { AuditPrismaClient } from '../audit/prisma-client.js';
import {
  SOURCE_RANKS,
  type TimelineFilters,
  type TimelinePosition,
  type TimelineVersion,
} from './timeline-params.js';
import { linkCauses } from './timeline-causes.js';

/** The kinds kept as evidence (the TimelineEntry table); gaps are what the audit knows it missed. */
const EVIDENCE_KINDS: readonly TimelineKind[] = ['event', 'pod', 'condition', 'pod-write', 'gap'];

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
        changesOf(filters),
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
        reconcilesOf(filters),
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
    const rows = await (
      await this.prisma()
    ).timelineEntry.findMany({
      where: {
        AND: [
          evidenceOf(filters),
          window('at', filters),
          after ? afterPosition('at', SOURCE_RANKS.evidence, after) : {},
        ],
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take,
    });
    return rows.map((row) => positioned(evidenceEntry(row), SOURCE_RANKS.evidence));
  }

  /** Where each store's chain ends now: a watch started from here misses nothing committed after. */
  async version(): Promise<TimelineVersion> {
    const heads = await (await this.prisma()).auditChainHead.findMany();
    const seq = (stream: AuditStream) => heads.find((head) => head.stream === stream)?.seq ?? 0;
    return { changes: seq('changes'), reconciles: seq('reconciles'), timeline: seq('timeline') };
  }

  /**
   * What was committed after `from`, oldest first, as watch events, and the version to continue from. Records
   * are found by their place in each store's hash chain, which is commit order (the chain heads are locked until
   * commit), so an entry stored late with an early time is not missed. A record that completes an earlier change
   * (kube-apiserver's event of a write we relayed) sends that change again, MODIFIED. At most `limit` records
   * per store are read per call; the version says where the next call resumes.
   */
  async since(filters: TimelineFilters, from: TimelineVersion, limit: number): Promise<TimelineChanges> {
    const wanted = (kind: TimelineKind) => !filters.kinds || filters.kinds.includes(kind);
    const prisma = await this.prisma();
    // Everything committed up to the heads read first is considered; a store read to its limit resumes after
    // its last record instead.
    const to = await this.version();
    const between = (stream: AuditStream) => ({ chainSeq: { gt: from[stream], lte: to[stream] } });
    const next = (stream: AuditStream, rows: readonly { chainSeq: number | null }[]) =>
      rows.length === limit ? (rows.at(-1)!.chainSeq ?? to[stream]) : to[stream];
    const order = { chainSeq: 'asc' } as const;
    const version = { ...from };
    const events: { type: TimelineWatchType; entry: Positioned }[] = [];

    if (wanted('change')) {
      const rows = await prisma.changeRecord.findMany({
        where: { AND: [changesOf(filters), between('changes')] },
        orderBy: order,
        take: limit,
        select: { id: true, completes: true, chainSeq: true },
      });
      version.changes = next('changes', rows);
      const firstIds = [...new Set(rows.map((row) => row.completes ?? row.id))];
      const added = new Set(rows.filter((row) => row.completes === null).map((row) => row.id));
      const changes =
        firstIds.length > 0 ? await this.audit.changeItems({ id: { in: firstIds } }, firstIds.length) : [];
      for (const change of changes)
        events.push({
          type: added.has(change.id) ? 'ADDED' : 'MODIFIED',
          entry: positioned(changeEntry(change), SOURCE_RANKS.change),
        });
    }
    if (wanted('reconcile')) {
      const rows = await prisma.reconcileRecord.findMany({
        where: { AND: [reconcilesOf(filters), between('reconciles')] },
        orderBy: order,
        take: limit,
      });
      version.reconciles = next('reconciles', rows);
      for (const row of rows)
        events.push({
          type: 'ADDED',
          entry: positioned(reconcileEntry(reconcileItem(row)), SOURCE_RANKS.reconcile),
        });
    }
    if (EVIDENCE_KINDS.some(wanted)) {
      const rows = await prisma.timelineEntry.findMany({
        where: { AND: [evidenceOf(filters), between('timeline')] },
        orderBy: order,
        take: limit,
      });
      version.timeline = next('timeline', rows);
      for (const row of rows)
        events.push({ type: 'ADDED', entry: positioned(evidenceEntry(row), SOURCE_RANKS.evidence) });
    }
    events.sort((a, b) => newestFirst(b.entry, a.entry));
    await linkCauses(
      events.map(({ entry }) => entry.item),
      filters,
      this.prisma,
    );
    return { events: events.map(({ type, entry }) => ({ type, item: entry.item })), version };
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

/** ADDED: a new entry; MODIFIED: a change sent before, completed since (its other identity, its specs). */
export type TimelineWatchType = 'ADDED' | 'MODIFIED';

export interface TimelineChanges {
  /** Oldest first. */
  events: { type: TimelineWatchType; item: TimelineItem }[];
  version: TimelineVersion;
}

/** The change records of the Nginx (of one object, with `uid`). */
function changesOf(filters: TimelineFilters): Prisma.ChangeRecordWhereInput {
  return { namespace: filters.namespace, name: filters.name, ...(filters.uid ? { uid: filters.uid } : {}) };
}

function reconcilesOf(filters: TimelineFilters): Prisma.ReconcileRecordWhereInput {
  return { namespace: filters.namespace, name: filters.name, ...(filters.uid ? { uid: filters.uid } : {}) };
}

/** Kept evidence of the Nginx of the wanted kinds; gaps of its name, and gaps of unknown Nginx, when wanted. */
function evidenceOf(filters: TimelineFilters): Prisma.TimelineEntryWhereInput {
  const kinds = EVIDENCE_KINDS.filter((kind) => !filters.kinds || filters.kinds.includes(kind));
  const about: Prisma.TimelineEntryWhereInput[] = [
    {
      namespace: filters.namespace,
      nginx: filters.name,
      kind: { in: kinds.filter((kind) => kind !== 'gap') },
      ...(filters.uid ? { nginxUid: filters.uid } : {}),
    },
  ];
  // A gap may have cost any object of the name, and a gap of unknown Nginx any Nginx.
  if (kinds.includes('gap'))
    about.push(
      { namespace: filters.namespace, nginx: filters.name, kind: 'gap' },
      { namespace: ANY_NGINX, nginx: ANY_NGINX, kind: 'gap' },
    );
  return { OR: about };
}
