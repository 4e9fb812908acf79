/** What a timeline entry is about (the TimelineEntry model's `kind`). */
export const TIMELINE_ENTRY_KINDS = ['event', 'pod', 'condition', 'pod-write', 'gap'] as const;
export type TimelineEntryKind = (typeof TIMELINE_ENTRY_KINDS)[number];

/**
 * One piece of kept evidence about an Nginx (a row of the TimelineEntry model): a Kubernetes Event about it or
 * one of its pods, a pod's transition, a condition change, or a write of one of its pods by someone. Optional
 * fields are stored as NULL when absent.
 */
export interface TimelineEntryRow {
  at: Date;
  namespace: string;
  nginx: string;
  nginxUid?: string | null;
  kind: TimelineEntryKind;
  what: string;
  pod?: string | null;
  podUid?: string | null;
  node?: string | null;
  reason?: string | null;
  message?: string | null;
  actor?: string | null;
  type?: string | null;
  count?: number | null;
  /** Stored once: a row whose key is stored already is skipped. */
  dedupeKey?: string | null;
}
