import type {
  ChangeRecord,
  Prisma,
  ReconcileRecord,
  RefusalCount,
} from '../../generated/prisma-sqlite/index.js';
import { encodeCursor, type AuditListKind, type CursorPosition } from './audit-cursor.js';
import {
  changeItem,
  noopItem,
  parseJsonColumn,
  reconcileItem,
  refusalItem,
  type ChangeItem,
  type RefusalItem,
  type NoopItem,
  type ReconcileItem,
} from './audit-items.js';
import type { ChangeFilters, NoopFilters, ReconcileFilters, RefusalFilters } from './audit-params.js';
import {
  CHANGE_ORDER,
  NOOP_ORDER,
  RECONCILE_ORDER,
  REFUSAL_ORDER,
  changeWhere,
  noopWhere,
  reconcileWhere,
  refusalWhere,
} from './audit-query.js';
import type { AuditPrismaClient } from './prisma-client.js';

/** A change's first record and the records that complete it, oldest first. */
interface FoldedChange {
  row: ChangeRecord;
  completions: ChangeRecord[];
}

/**
 * Most changes first recorded without an actor (the informer's) that the actor filter finds by a later record
 * naming the actor: such records exist only for writes whose audit event came late, so this is no real limit.
 */
const COMPLETED_BY_ACTOR = 10_000;

/** Rows read per query while exporting, so an export of any size holds one batch in memory. */
export const EXPORT_BATCH = 500;

/** A successful write of an Nginx that left a spec: what the revisions endpoint matches revisions with. */
export interface SpecChange {
  at: string;
  actor: string;
  role: string;
  door: string;
  verb: string;
  /** The specs parsed back from JSON (null: none recorded; a string: text cut to fit, no longer JSON). */
  specBefore: unknown;
  specAfter: unknown;
}

export interface Page<Item> {
  items: Item[];
  /** Present when more rows match: pass it back as `continue` for the next page. */
  continue?: string;
}

/** How one list is read: its rows' position in the order, and its query. */
interface ListSource<Filters extends object, Row, Item> {
  kind: AuditListKind;
  find(filters: Filters, after: CursorPosition | undefined, take: number): Promise<Row[]>;
  position(row: Row): CursorPosition;
  item(row: Row): Item;
}

/** Reads the audit trail newest first: pages with a cursor, and every matching row in batches for exports. */
export class AuditReader {
  private readonly reconcileSource: ListSource<ReconcileFilters, ReconcileRecord, ReconcileItem>;
  private readonly changeSource: ListSource<ChangeFilters, FoldedChange, ChangeItem>;
  private readonly refusalSource: ListSource<RefusalFilters, RefusalCount, RefusalItem>;

  /** @param prisma the client to read with, asked for on each read (AuditDatabase makes it on the first). */
  constructor(private readonly prisma: () => Promise<AuditPrismaClient>) {
    this.reconcileSource = {
      kind: 'reconciles',
      find: (filters, after, take) => this.findReconciles(filters, after, take),
      position: (row) => ({ at: row.startedAt, id: row.id }),
      item: reconcileItem,
    };
    this.changeSource = {
      kind: 'changes',
      find: (filters, after, take) => this.findChanges(filters, after, take),
      position: ({ row }) => ({ at: row.at, id: row.id }),
      item: ({ row, completions }) => changeItem(row, completions),
    };
    this.refusalSource = {
      kind: 'refusals',
      find: async (filters, after, take) =>
        (await this.prisma()).refusalCount.findMany({
          where: refusalWhere(filters, after),
          orderBy: [...REFUSAL_ORDER],
          take,
        }),
      position: (row) => ({ at: row.windowStart, id: row.id }),
      item: refusalItem,
    };
  }

  /** Refused requests counted per window and key, newest window first. */
  refusals(filters: RefusalFilters, limit: number, after?: CursorPosition): Promise<Page<RefusalItem>> {
    return page(this.refusalSource, filters, limit, after);
  }

  reconciles(filters: ReconcileFilters, limit: number, after?: CursorPosition): Promise<Page<ReconcileItem>> {
    return page(this.reconcileSource, filters, limit, after);
  }

  reconcileBatches(filters: ReconcileFilters, size = EXPORT_BATCH): AsyncGenerator<ReconcileItem[]> {
    return batches(this.reconcileSource, filters, size);
  }

  changes(filters: ChangeFilters, limit: number, after?: CursorPosition): Promise<Page<ChangeItem>> {
    return page(this.changeSource, filters, limit, after);
  }

  changeBatches(filters: ChangeFilters, size = EXPORT_BATCH): AsyncGenerator<ChangeItem[]> {
    return batches(this.changeSource, filters, size);
  }

  /**
   * The successful writes of one Nginx (this uid, so not those of an earlier object of the same name) that left
   * a spec, newest first, `size` rows a batch: the caller reads only as far as it needs.
   */
  async *specChanges(
    nginx: { namespace: string; name: string; uid: string },
    size = 100,
  ): AsyncGenerator<SpecChange[]> {
    const { namespace, name, uid } = nginx;
    let after: CursorPosition | undefined;
    for (;;) {
      const prisma = await this.prisma();
      const rows = await prisma.changeRecord.findMany({
        where: {
          AND: [
            changeWhere({ namespace, name, result: 'success' }, after),
            { uid, specAfter: { not: null }, completes: null },
          ],
        },
        orderBy: [...CHANGE_ORDER],
        take: size,
        select: {
          id: true,
          at: true,
          actor: true,
          role: true,
          door: true,
          verb: true,
          specBefore: true,
          specAfter: true,
        },
      });
      if (rows.length > 0)
        yield rows.map((row) => ({
          at: row.at.toISOString(),
          actor: row.actor,
          role: row.role,
          door: row.door,
          verb: row.verb,
          specBefore: parseJsonColumn(row.specBefore),
          specAfter: parseJsonColumn(row.specAfter),
        }));
      const last = rows[rows.length - 1];
      if (rows.length < size || last === undefined) return;
      after = { at: last.at, id: last.id };
    }
  }

  /** Changes (first records matching `where`, folded with their completions), newest first, at most `take`. */
  async changeItems(where: Prisma.ChangeRecordWhereInput, take: number): Promise<ChangeItem[]> {
    const rows = await (
      await this.prisma()
    ).changeRecord.findMany({
      where: { AND: [where, { completes: null }] },
      orderBy: [...CHANGE_ORDER],
      take,
    });
    return (await this.withCompletions(rows)).map(({ row, completions }) => changeItem(row, completions));
  }

  /** Reconcile records matching `where`, newest first, at most `take`. */
  async reconcileItems(where: Prisma.ReconcileRecordWhereInput, take: number): Promise<ReconcileItem[]> {
    const rows = await (
      await this.prisma()
    ).reconcileRecord.findMany({
      where,
      orderBy: [...RECONCILE_ORDER],
      take,
    });
    return rows.map(reconcileItem);
  }

  /** The no-op counts, one per Nginx, by namespace and name. */
  async noops(filters: NoopFilters): Promise<NoopItem[]> {
    const prisma = await this.prisma();
    const rows = await prisma.reconcileNoop.findMany({
      where: noopWhere(filters),
      orderBy: [...NOOP_ORDER],
    });
    return rows.map(noopItem);
  }

  private async findReconciles(filters: ReconcileFilters, after: CursorPosition | undefined, take: number) {
    return (await this.prisma()).reconcileRecord.findMany({
      where: reconcileWhere(filters, after),
      orderBy: [...RECONCILE_ORDER],
      take,
    });
  }

  /**
   * A change's first records (those that complete none), each with the records that complete it. The actor
   * filter also finds a change first recorded without its actor (by the informer) that a later record names.
   */
  private async findChanges(
    filters: ChangeFilters,
    after: CursorPosition | undefined,
    take: number,
  ): Promise<FoldedChange[]> {
    const prisma = await this.prisma();
    const { actor, ...rest } = filters;
    const actorWhere = actor === undefined ? undefined : await this.actorWhere(actor);
    const rows = await prisma.changeRecord.findMany({
      where: { AND: [changeWhere(rest, after), { completes: null }, ...(actorWhere ? [actorWhere] : [])] },
      orderBy: [...CHANGE_ORDER],
      take,
    });
    return this.withCompletions(rows);
  }

  /** Records of `actor`, and unknown-actor records a record of `actor` completes (at most COMPLETED_BY_ACTOR). */
  private async actorWhere(actor: string): Promise<Prisma.ChangeRecordWhereInput> {
    const completing = await (
      await this.prisma()
    ).changeRecord.findMany({
      where: { actor, completes: { not: null }, door: { not: 'controlplane' } },
      select: { completes: true },
      orderBy: { id: 'desc' },
      take: COMPLETED_BY_ACTOR,
    });
    const ids = completing.map((each) => each.completes!).filter((id) => id !== null);
    return ids.length === 0
      ? { actor }
      : {
          OR: [
            { actor, door: { not: 'unknown' } },
            { id: { in: ids }, door: 'unknown' },
          ],
        };
  }

  private async withCompletions(rows: ChangeRecord[]): Promise<FoldedChange[]> {
    if (rows.length === 0) return [];
    const completions = await (
      await this.prisma()
    ).changeRecord.findMany({
      where: { completes: { in: rows.map((row) => row.id) } },
      orderBy: { id: 'asc' },
    });
    const byOriginal = new Map<number, ChangeRecord[]>();
    for (const completion of completions) {
      const list = byOriginal.get(completion.completes!) ?? [];
      list.push(completion);
      byOriginal.set(completion.completes!, list);
    }
    return rows.map((row) => ({ row, completions: byOriginal.get(row.id) ?? [] }));
  }
}

/** One page: reads one row more than asked to learn whether another page follows. */
async function page<Filters extends object, Row, Item>(
  source: ListSource<Filters, Row, Item>,
  filters: Filters,
  limit: number,
  after: CursorPosition | undefined,
): Promise<Page<Item>> {
  const rows = await source.find(filters, after, limit + 1);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const more = rows.length > limit && last !== undefined;
  return {
    items: items.map(source.item),
    ...(more ? { continue: encodeCursor(source.kind, filters, source.position(last)) } : {}),
  };
}

/** Every matching row, `size` at a time, each batch resuming after the previous one's last row. */
async function* batches<Filters extends object, Row, Item>(
  source: ListSource<Filters, Row, Item>,
  filters: Filters,
  size: number,
): AsyncGenerator<Item[]> {
  let after: CursorPosition | undefined;
  for (;;) {
    const rows = await source.find(filters, after, size);
    if (rows.length > 0) yield rows.map(source.item);
    const last = rows[rows.length - 1];
    if (rows.length < size || last === undefined) return;
    after = source.position(last);
  }
}
