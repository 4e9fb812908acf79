import { readFileSync } from 'node:fs';
import { linksOf, messageBody } from './messages.js';
import type { NotificationEvent } from './notification-event.js';
import type { DeliveryRecord, NotificationRecords } from './notification-records.js';
import type { Delivery, NotificationSender } from './notification-sender.js';
import { receiversFor, type ReceiverSpec, type Routing } from './routing.js';

/** How long a standby keeps the events it saw, for when it takes over (longer than any hand-over takes). */
const STANDBY_MEMORY_MS = 10 * 60_000;
/** Most events a standby keeps. */
const STANDBY_LIMIT = 10_000;
/** Deliveries a stopped leader left pending are taken over when claimed this recently. */
const TAKE_OVER_WINDOW_MS = 60 * 60_000;

export interface NotifierParts {
  records: NotificationRecords;
  sender: NotificationSender;
  routing: () => Routing | undefined;
  leading: () => boolean;
  /** Reads a receiver's HMAC key from where it says (tests replace it). */
  secretOf?: (receiver: ReceiverSpec) => string | undefined;
  onProblem: (message: string) => void;
  /** Told on taking over: events remembered and offered, deliveries of them claimed, deliveries left pending resent. */
  onTookOver?: (taken: { offered: number; claimed: number; resent: number }) => void;
  now?: () => Date;
}

/**
 * Decides which notifications to send and hands them to the sender, off every reconcile's path (`notify` never
 * waits). Only the leader sends, and each delivery (event × receiver) once: it is claimed in the records first
 * (insert if absent), and only the claimer sends it. A standby remembers the events it sees for a while; taking
 * over, it offers them to the records (what the old leader claimed is skipped, the rest sent) and resends what the
 * old leader claimed but never settled.
 */
export class Notifier {
  private readonly remembered = new Map<string, NotificationEvent>();
  private wasLeading = false;
  /** Delivery ids this instance handed to its sender and has not settled. */
  private readonly carrying = new Set<string>();

  constructor(private readonly parts: NotifierParts) {}

  /** Takes events seen by the informer (every instance sees them; never waits, never throws). */
  notify(events: readonly NotificationEvent[]): void {
    if (events.length === 0) return;
    if (!this.parts.leading()) {
      for (const event of events) this.remember(event);
      return;
    }
    for (const event of events) void this.decide(event);
  }

  /** Looks at the leadership (called every second or so): taking over offers the remembered events and resends. */
  async checkLeadership(): Promise<void> {
    const leading = this.parts.leading();
    const tookOver = leading && !this.wasLeading;
    this.wasLeading = leading;
    if (!tookOver) return;
    const now = this.now();
    const remembered = [...this.remembered.values()];
    this.remembered.clear();
    let claimed = 0;
    for (const event of remembered) claimed += await this.decide(event);
    let resent = 0;
    try {
      await this.parts.records.prune(new Date(now.getTime() - 7 * 24 * 3600_000));
      const left = await this.parts.records.unsettled(new Date(now.getTime() - TAKE_OVER_WINDOW_MS));
      for (const record of left) if (!this.carrying.has(record.id) && this.carry(record)) resent++;
    } catch (error) {
      this.parts.onProblem(`cannot read the notifications left pending: ${messageOf(error)}`);
    }
    this.parts.onTookOver?.({ offered: remembered.length, claimed, resent });
  }

  /** Settles a delivery the sender finished. */
  async settled(delivery: Delivery, state: 'sent' | 'given-up', attempts: number): Promise<void> {
    this.carrying.delete(delivery.id);
    try {
      await this.parts.records.settle(delivery.id, state, attempts, this.now());
    } catch (error) {
      this.parts.onProblem(`cannot record notification ${delivery.id} as ${state}: ${messageOf(error)}`);
    }
  }

  private remember(event: NotificationEvent): void {
    const cutoff = this.now().getTime() - STANDBY_MEMORY_MS;
    for (const [key, old] of this.remembered)
      if (this.remembered.size >= STANDBY_LIMIT || Date.parse(old.at) < cutoff) this.remembered.delete(key);
      else break;
    this.remembered.set(event.key, event);
  }

  /** Claims `event`'s deliveries and sends those this call claimed; resolves to how many. */
  private async decide(event: NotificationEvent): Promise<number> {
    const routing = this.parts.routing();
    if (!routing) return 0;
    let claimed = 0;
    const links = linksOf(event, routing.uiBaseUrl);
    for (const receiver of receiversFor(routing, event)) {
      const record: DeliveryRecord = {
        id: `${event.key}/${receiver.name}`,
        namespace: event.namespace,
        nginx: event.name,
        event: event.type,
        receiver: receiver.name,
        body: JSON.stringify(messageBody(receiver.type, event, links)),
      };
      try {
        if (await this.parts.records.claim(record, this.now())) {
          this.carry(record);
          claimed++;
        }
      } catch (error) {
        this.parts.onProblem(`cannot record notification ${record.id}, not sent: ${messageOf(error)}`);
      }
    }
    return claimed;
  }

  /** Hands the delivery to the sender; false when it cannot be sent (its receiver gone, its secret unreadable). */
  private carry(record: DeliveryRecord): boolean {
    const receiver = this.parts.routing()?.receivers.find((candidate) => candidate.name === record.receiver);
    if (!receiver) {
      this.parts.onProblem(`notification ${record.id}: receiver ${record.receiver} is no longer routed to`);
      return false;
    }
    let secret: string | undefined;
    try {
      secret = (this.parts.secretOf ?? secretOf)(receiver);
    } catch (error) {
      this.parts.onProblem(`receiver ${receiver.name}: cannot read its secret: ${messageOf(error)}`);
      return false;
    }
    this.carrying.add(record.id);
    this.parts.sender.send({
      id: record.id,
      receiver: receiver.name,
      event: record.event,
      namespace: record.namespace,
      nginx: record.nginx,
      url: receiver.url,
      body: record.body,
      ...(secret !== undefined ? { secret } : {}),
      timeoutMs: receiver.timeoutSeconds * 1000,
      attempts: receiver.attempts,
    });
    return true;
  }

  private now(): Date {
    return this.parts.now?.() ?? new Date();
  }
}

/** A webhook receiver's HMAC key: its secretEnv's value, or its secretFile's content (trimmed). */
export function secretOf(receiver: ReceiverSpec): string | undefined {
  if (receiver.secretEnv) {
    const value = process.env[receiver.secretEnv];
    if (!value) throw new Error(`${receiver.secretEnv} is not set`);
    return value;
  }
  return receiver.secretFile ? readFileSync(receiver.secretFile, 'utf8').trim() : undefined;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
