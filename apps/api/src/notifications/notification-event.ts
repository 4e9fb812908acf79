/** The events a routing file may send (docs/operations.md, "Notifications"). */
export const NOTIFICATION_EVENTS = [
  'rollout-started',
  'rollout-completed',
  'rollout-failed',
  'rolled-back',
  'canary-paused',
  'analysis-failed',
  'progress-deadline-exceeded',
  'nginx-deleted',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENTS)[number];

/** An event that happened to one Nginx, as its notifications tell it. */
export interface NotificationEvent {
  type: NotificationEventType;
  /**
   * The durable fact it was decided from: the same for every instance that sees the same status change (the
   * Nginx's uid, the event, its revision and generation, and what tells this occurrence from an earlier one), so
   * a delivery is recorded once whichever instance decides it.
   */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  /** ISO time it happened (the condition's transition, or when it was seen). */
  at: string;
  /** The revision it concerns (status.updateRevision), when known. */
  revision?: string;
  /** One sentence for people. */
  summary: string;
  /** The Nginx's labels, for routes that select by label. */
  labels: Record<string, string>;
}
