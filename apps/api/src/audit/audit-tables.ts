/**
 * The audit trail's tables as the sink writes them with plain SQL: each column's Prisma type, whether it may be
 * null, and the schema's default. prisma/schema.prisma is the source; audit-tables.spec.ts reads it and fails when
 * these lists drift from it. Auto-increment ids are left out: the database assigns them.
 */

export type ColumnType = 'Int' | 'String' | 'DateTime';

export interface AuditColumn {
  name: string;
  type: ColumnType;
  /** `Type?` in the schema: null (or a missing value) is stored as NULL. */
  optional?: boolean;
  /** The schema's `@default(…)`, stored when the row has no value. */
  default?: string | number;
  /**
   * Added after the hash chains began: a record's hash covers the column only when it holds a value (by name,
   * after the others), so a record stored before the column existed keeps its hash. Set on every column a
   * migration adds to a chained table after the chains' own migration (audit-tables.spec.ts checks).
   */
  chainedWhenSet?: true;
}

export interface AuditTable {
  /** The model's name, which is also its table's name in both databases. */
  name:
    | 'ReconcileRecord'
    | 'ChangeRecord'
    | 'ReconcileNoop'
    | 'RefusalCount'
    | 'TimelineEntry'
    | 'AuditChainHead';
  columns: readonly AuditColumn[];
}

const required = (name: string, type: ColumnType): AuditColumn => ({ name, type });
const optional = (name: string, type: ColumnType): AuditColumn => ({ name, type, optional: true });
/** An optional column added after the hash chains began (see AuditColumn.chainedWhenSet). */
const added = (name: string, type: ColumnType): AuditColumn => ({
  name,
  type,
  optional: true,
  chainedWhenSet: true,
});

/** A chained record's place in its stream and its hash (audit/chain/audit-chain.ts); set by the sink. */
const CHAIN_COLUMNS: readonly AuditColumn[] = [optional('chainSeq', 'Int'), optional('hash', 'String')];

export const RECONCILE_RECORD_TABLE: AuditTable = {
  name: 'ReconcileRecord',
  columns: [
    required('startedAt', 'DateTime'),
    required('finishedAt', 'DateTime'),
    required('durationMs', 'Int'),
    required('namespace', 'String'),
    required('name', 'String'),
    optional('uid', 'String'),
    optional('generation', 'Int'),
    optional('resourceVersion', 'String'),
    required('trigger', 'String'),
    optional('desiredReplicas', 'Int'),
    optional('activeReplicas', 'Int'),
    optional('readyReplicas', 'Int'),
    { name: 'actions', type: 'String', default: '[]' },
    required('result', 'String'),
    optional('error', 'String'),
    { name: 'attempt', type: 'Int', default: 1 },
    required('instanceId', 'String'),
    ...CHAIN_COLUMNS,
  ],
};

export const CHANGE_RECORD_TABLE: AuditTable = {
  name: 'ChangeRecord',
  columns: [
    required('at', 'DateTime'),
    required('actor', 'String'),
    required('role', 'String'),
    added('actorEmail', 'String'),
    added('actorGroups', 'String'),
    added('authenticatedBy', 'String'),
    required('verb', 'String'),
    required('namespace', 'String'),
    required('name', 'String'),
    optional('subresource', 'String'),
    optional('patchType', 'String'),
    optional('specBefore', 'String'),
    optional('specAfter', 'String'),
    required('code', 'Int'),
    optional('reason', 'String'),
    optional('message', 'String'),
    optional('uid', 'String'),
    optional('resourceVersion', 'String'),
    optional('userAgent', 'String'),
    { name: 'door', type: 'String', default: 'controlplane' },
    { name: 'source', type: 'String', default: 'controlplane' },
    optional('auditId', 'String'),
    optional('kubeUser', 'String'),
    optional('kubeGroups', 'String'),
    optional('impersonator', 'String'),
    optional('fieldManager', 'String'),
    optional('generation', 'Int'),
    optional('joinKey', 'String'),
    optional('completes', 'Int'),
    optional('dedupeKey', 'String'),
    ...CHAIN_COLUMNS,
  ],
};

/** Keyed by (namespace, name): the sink adds to an existing count rather than inserting a second row. */
export const RECONCILE_NOOP_TABLE: AuditTable = {
  name: 'ReconcileNoop',
  columns: [
    required('namespace', 'String'),
    required('name', 'String'),
    required('count', 'Int'),
    required('lastAt', 'DateTime'),
  ],
};

/**
 * Keyed by (windowStart, door, code, reason, subject, address): the sink adds to an existing count rather than
 * inserting a second row. Counters, like the no-op counts: in no hash chain.
 */
export const REFUSAL_COUNT_TABLE: AuditTable = {
  name: 'RefusalCount',
  columns: [
    required('windowStart', 'DateTime'),
    required('door', 'String'),
    required('code', 'Int'),
    required('reason', 'String'),
    required('subject', 'String'),
    required('address', 'String'),
    required('count', 'Int'),
    required('firstAt', 'DateTime'),
    required('lastAt', 'DateTime'),
    required('message', 'String'),
  ],
};

export const TIMELINE_ENTRY_TABLE: AuditTable = {
  name: 'TimelineEntry',
  columns: [
    required('at', 'DateTime'),
    required('namespace', 'String'),
    required('nginx', 'String'),
    optional('nginxUid', 'String'),
    required('kind', 'String'),
    required('what', 'String'),
    optional('pod', 'String'),
    optional('podUid', 'String'),
    optional('node', 'String'),
    optional('reason', 'String'),
    optional('message', 'String'),
    optional('actor', 'String'),
    optional('type', 'String'),
    optional('count', 'Int'),
    optional('dedupeKey', 'String'),
    ...CHAIN_COLUMNS,
  ],
};

/** One row per chained stream: the chain's last place and hash, and where retention cut its beginning. */
export const AUDIT_CHAIN_HEAD_TABLE: AuditTable = {
  name: 'AuditChainHead',
  columns: [
    required('stream', 'String'),
    required('seq', 'Int'),
    required('hash', 'String'),
    { name: 'prunedSeq', type: 'Int', default: 0 },
    optional('prunedHash', 'String'),
  ],
};

export const AUDIT_TABLES: readonly AuditTable[] = [
  RECONCILE_RECORD_TABLE,
  CHANGE_RECORD_TABLE,
  RECONCILE_NOOP_TABLE,
  REFUSAL_COUNT_TABLE,
  TIMELINE_ENTRY_TABLE,
  AUDIT_CHAIN_HEAD_TABLE,
];
