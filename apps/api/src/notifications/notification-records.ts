import type { AuditDatabase, SqlStatement } from '../audit/audit-database.js';
import type { ColumnType } from '../audit/audit-tables.js';

export type DeliveryState = 'pending' | 'sent' | 'given-up';

/** A delivery as stored (the NotificationDelivery table, prisma/schema.prisma). */
export interface DeliveryRecord {
  id: string;
  namespace: string;
  nginx: string;
  event: string;
  receiver: string;
  body: string;
}

/**
 * The durable side of "sent once": a delivery is claimed (inserted if absent) before it is sent, and marked sent
 * or given up after. Whoever claims it sends it; an instance that finds it claimed does not.
 */
export interface NotificationRecords {
  /** True when this call stored it (this instance sends it); false when it was stored already. */
  claim(record: DeliveryRecord, now: Date): Promise<boolean>;
  settle(id: string, state: Exclude<DeliveryState, 'pending'>, attempts: number, now: Date): Promise<void>;
  /** Deliveries claimed since `since` and still pending (their claimer stopped before it settled them). */
  unsettled(since: Date): Promise<DeliveryRecord[]>;
  /** Forgets deliveries claimed before `before`. */
  prune(before: Date): Promise<void>;
}

const text = (value: string): [string, ColumnType] => [value, 'String'];
const time = (value: Date): [Date, ColumnType] => [value, 'DateTime'];
const int = (value: number): [number, ColumnType] => [value, 'Int'];

/** A statement from a tagged template, each value with its column type. */
function statement(strings: TemplateStringsArray, ...values: [unknown, ColumnType][]): SqlStatement {
  return { strings, values: values.map(([value]) => value), types: values.map(([, type]) => type) };
}

/** NotificationRecords in the audit database (SQLite or PostgreSQL: both take ON CONFLICT DO NOTHING). */
export class SqlNotificationRecords implements NotificationRecords {
  constructor(private readonly database: AuditDatabase) {}

  async claim(record: DeliveryRecord, now: Date): Promise<boolean> {
    const [changed] = await this.database.transaction([
      statement`INSERT INTO "NotificationDelivery" ("id", "namespace", "nginx", "event", "receiver", "body", "state", "attempts", "createdAt", "updatedAt") VALUES (${text(record.id)}, ${text(record.namespace)}, ${text(record.nginx)}, ${text(record.event)}, ${text(record.receiver)}, ${text(record.body)}, ${text('pending')}, ${int(0)}, ${time(now)}, ${time(now)}) ON CONFLICT ("id") DO NOTHING`,
    ]);
    return changed === 1;
  }

  async settle(
    id: string,
    state: Exclude<DeliveryState, 'pending'>,
    attempts: number,
    now: Date,
  ): Promise<void> {
    await this.database.transaction([
      statement`UPDATE "NotificationDelivery" SET "state" = ${text(state)}, "attempts" = ${int(attempts)}, "updatedAt" = ${time(now)} WHERE "id" = ${text(id)}`,
    ]);
  }

  async unsettled(since: Date): Promise<DeliveryRecord[]> {
    const rows = await this.database.read(
      statement`SELECT "id", "namespace", "nginx", "event", "receiver", "body" FROM "NotificationDelivery" WHERE "state" = ${text('pending')} AND "createdAt" >= ${time(since)} ORDER BY "createdAt"`,
    );
    return rows.map(([id, namespace, nginx, event, receiver, body]) => ({
      id: id as string,
      namespace: namespace as string,
      nginx: nginx as string,
      event: event as string,
      receiver: receiver as string,
      body: body as string,
    }));
  }

  async prune(before: Date): Promise<void> {
    await this.database.transaction([
      statement`DELETE FROM "NotificationDelivery" WHERE "createdAt" < ${time(before)}`,
    ]);
  }
}

/** NotificationRecords of one process (tests, and a database that cannot be reached: better sent than lost). */
export class MemoryNotificationRecords implements NotificationRecords {
  private readonly records = new Map<string, DeliveryRecord & { state: DeliveryState; createdAt: Date }>();

  claim(record: DeliveryRecord, now: Date): Promise<boolean> {
    if (this.records.has(record.id)) return Promise.resolve(false);
    this.records.set(record.id, { ...record, state: 'pending', createdAt: now });
    return Promise.resolve(true);
  }

  settle(id: string, state: Exclude<DeliveryState, 'pending'>): Promise<void> {
    const record = this.records.get(id);
    if (record) record.state = state;
    return Promise.resolve();
  }

  unsettled(since: Date): Promise<DeliveryRecord[]> {
    return Promise.resolve(
      [...this.records.values()]
        .filter((record) => record.state === 'pending' && record.createdAt >= since)
        .map(({ id, namespace, nginx, event, receiver, body }) => ({
          id,
          namespace,
          nginx,
          event,
          receiver,
          body,
        })),
    );
  }

  prune(before: Date): Promise<void> {
    for (const [id, record] of this.records) if (record.createdAt < before) this.records.delete(id);
    return Promise.resolve();
  }
}
