import type { Prisma } from '../../generated/prisma-sqlite/index.js';
import type { CursorPosition } from './audit-cursor.js';
import type { ChangeFilters, NoopFilters, ReconcileFilters, RefusalFilters } from './audit-params.js';

/**
 * Filters and a cursor as Prisma `where` and `orderBy`. Both lists are newest first, ties broken by id, so a
 * cursor (the last row's time and id) resumes exactly after that row even while new rows arrive.
 */

export const RECONCILE_ORDER = [
  { startedAt: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.ReconcileRecordOrderByWithRelationInput[];

export const CHANGE_ORDER = [
  { at: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.ChangeRecordOrderByWithRelationInput[];

/** By window (a count's window never changes, unlike its lastAt), so a cursor resumes exactly. */
export const REFUSAL_ORDER = [
  { windowStart: 'desc' },
  { id: 'desc' },
] as const satisfies Prisma.RefusalCountOrderByWithRelationInput[];

export const NOOP_ORDER = [
  { namespace: 'asc' },
  { name: 'asc' },
] as const satisfies Prisma.ReconcileNoopOrderByWithRelationInput[];

/** `{ gte: since, lt: until }` with only the bounds given; undefined when neither is. */
function timeWindow({ since, until }: { since?: Date; until?: Date }): Prisma.DateTimeFilter | undefined {
  if (!since && !until) return undefined;
  return { ...(since ? { gte: since } : {}), ...(until ? { lt: until } : {}) };
}

/** Rows strictly after `position` in (time desc, id desc) order. */
function after<Field extends string>(field: Field, { at, id }: CursorPosition) {
  return {
    OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: id } }],
  } as { OR: ({ [K in Field]: { lt: Date } } | ({ [K in Field]: Date } & { id: { lt: number } }))[] };
}

export function reconcileWhere(
  filters: ReconcileFilters,
  position?: CursorPosition,
): Prisma.ReconcileRecordWhereInput {
  const { namespace, name, result } = filters;
  const startedAt = timeWindow(filters);
  const where: Prisma.ReconcileRecordWhereInput = {
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(result !== undefined ? { result } : {}),
    ...(startedAt ? { startedAt } : {}),
  };
  return position ? { AND: [where, after('startedAt', position)] } : where;
}

export function changeWhere(
  filters: ChangeFilters,
  position?: CursorPosition,
): Prisma.ChangeRecordWhereInput {
  const { namespace, name, actor, verb, result } = filters;
  const at = timeWindow(filters);
  const where: Prisma.ChangeRecordWhereInput = {
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(actor !== undefined ? { actor } : {}),
    ...(verb !== undefined ? { verb } : {}),
    ...(at ? { at } : {}),
  };
  const outcome: Prisma.ChangeRecordWhereInput | undefined =
    result === 'success'
      ? { code: { gte: 200, lt: 300 } }
      : result === 'failure'
        ? { OR: [{ code: { lt: 200 } }, { code: { gte: 300 } }] }
        : undefined;
  const clauses = [where, ...(outcome ? [outcome] : []), ...(position ? [after('at', position)] : [])];
  return clauses.length === 1 ? where : { AND: clauses };
}

export function noopWhere({ namespace, name }: NoopFilters): Prisma.ReconcileNoopWhereInput {
  return {
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

export function refusalWhere(
  filters: RefusalFilters,
  position?: CursorPosition,
): Prisma.RefusalCountWhereInput {
  const { door, code, since, until } = filters;
  const where: Prisma.RefusalCountWhereInput = {
    ...(door !== undefined ? { door } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(since ? { lastAt: { gte: since } } : {}),
    ...(until ? { firstAt: { lt: until } } : {}),
  };
  return position ? { AND: [where, after('windowStart', position)] } : where;
}
