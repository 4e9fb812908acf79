import type { TimelineEntryRow } from './timeline-entry.js';

/**
 * What the audit knows it missed. Each gap becomes a timeline entry (kind `gap`, type Warning), so a hole in the
 * trail is shown where it happened rather than silently:
 * - `audit-queue-overflow`: records dropped because the writer's queue was full (the database slow or away);
 * - `audit-events-lost`: audit events kube-apiserver gave up delivering to the webhook after its retries
 *   (its `apiserver_audit_error_total{plugin="webhook"}` grew);
 * - `audit-events-unreadable`: audit events that arrived but could not be read (an invalid item of a batch, a
 *   batch over the size limit, a log line that does not parse);
 * - `observed-changes-dropped`: writes the informer saw but could not hold for their audit events;
 * - `notification-given-up`: a notification its receiver did not take after every attempt (notifications/).
 */
export type AuditGapKind =
  | 'audit-queue-overflow'
  | 'audit-events-lost'
  | 'audit-events-unreadable'
  | 'observed-changes-dropped'
  | 'notification-given-up';

export interface AuditGap {
  what: AuditGapKind;
  /** When the loss began and when it was seen to end (or was noticed). */
  from: Date;
  until: Date;
  /** How many records or events were lost. */
  count: number;
  /** The Nginx whose records were lost; absent when unknown (the gap then shows in every Nginx's timeline). */
  namespace?: string;
  nginx?: string;
  /** Where it was seen, in words (e.g. "kube-apiserver's audit webhook"). */
  detail: string;
}

/** The namespace and Nginx name a gap of unknown Nginx is stored under: every timeline shows it. */
export const ANY_NGINX = '';

const SUMMARIES: Readonly<Record<AuditGapKind, string>> = {
  'audit-queue-overflow': 'audit records dropped: the audit queue was full',
  'audit-events-lost': 'audit events lost: kube-apiserver gave up delivering them',
  'audit-events-unreadable': 'audit events lost: they could not be read',
  'observed-changes-dropped': 'observed changes dropped: too many held at once',
  'notification-given-up': 'notification given up: its receiver did not take it',
};

/** The gap as a timeline entry, placed where the loss began; stored once per gap (by what, whose and when). */
export function gapEntry(gap: AuditGap): TimelineEntryRow {
  const namespace = gap.namespace ?? ANY_NGINX;
  const nginx = gap.nginx ?? ANY_NGINX;
  return {
    at: gap.from,
    namespace,
    nginx,
    kind: 'gap',
    what: gap.what,
    type: 'Warning',
    count: gap.count,
    reason: gap.detail,
    message: `${gap.count} ${SUMMARIES[gap.what]} (${gap.from.toISOString()} – ${gap.until.toISOString()})`,
    dedupeKey: `gap:${gap.what}:${namespace}/${nginx}:${gap.from.toISOString()}:${gap.until.toISOString()}`,
  };
}

/** Most Nginxes a tally names one by one; records of others count toward one gap of unknown Nginx. */
const MAX_NAMED = 1_000;

/**
 * Counts records dropped during one loss, per Nginx (bounded: past MAX_NAMED Nginxes, the rest are counted as
 * of unknown Nginx), and turns them into gaps once the loss ends.
 */
export class LossTally {
  private readonly perNginx = new Map<string, { namespace: string; nginx: string; count: number }>();
  private unnamed = 0;
  private from?: Date;
  private counted = 0;

  /** Records counted since the last drain. */
  get total(): number {
    return this.counted;
  }

  add(namespace: string, nginx: string, at = new Date()): void {
    this.from ??= at;
    this.counted += 1;
    const key = `${namespace}\u0000${nginx}`;
    const known = this.perNginx.get(key);
    if (known) known.count += 1;
    else if (this.perNginx.size < MAX_NAMED) this.perNginx.set(key, { namespace, nginx, count: 1 });
    else this.unnamed += 1;
  }

  /** The loss as gaps ending `until` (none when nothing was lost), and a fresh tally. */
  drain(what: AuditGapKind, detail: string, until = new Date()): AuditGap[] {
    const from = this.from;
    if (!from) return [];
    const gaps: AuditGap[] = [...this.perNginx.values()].map(({ namespace, nginx, count }) => ({
      what,
      from,
      until,
      count,
      namespace,
      nginx,
      detail,
    }));
    if (this.unnamed > 0) gaps.push({ what, from, until, count: this.unnamed, detail });
    this.perNginx.clear();
    this.unnamed = 0;
    this.counted = 0;
    this.from = undefined;
    return gaps;
  }
}
