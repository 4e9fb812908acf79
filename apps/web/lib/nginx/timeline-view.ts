import type { TimelineItem, TimelineKind } from '@ngx/nginx-api';

/** What the Timeline panel filters by: kinds (none: all) and an actor (any part of the name, any case). */
export interface TimelineFilter {
  kinds: readonly TimelineKind[];
  actor: string;
}

/** One line of the Timeline panel: one entry, or a burst of like entries. */
export interface TimelineRow {
  /** The newest member's id (the row's anchor); `ids` holds every member's. */
  id: string;
  ids: string[];
  kind: TimelineKind;
  at: string;
  text: string;
  actor: string | null;
  tone: 'neutral' | 'info' | 'success' | 'warning' | 'danger';
  /** The members' causes not inside the row itself. */
  causes: string[];
}

/** Entries of one burst are at most this far apart. */
const BURST_MS = 5_000;

/** Who an entry names as its actor: a change's, a pod write's, an Event's reporter; null when none. */
export function actorOf(item: TimelineItem): string | null {
  if (item.change) return item.change.actor || null;
  return item.evidence?.actor ?? null;
}

/** One entry in words: "eve (editor) patched the spec", "pod web-1 created", "FailedCreate: …". */
export function entryText(item: TimelineItem): string {
  if (item.change) {
    const { actor, role, door, verb, subresource, code } = item.change;
    const who = actor ? `${actor}${role ? ` (${role})` : ` via ${door}`}` : `someone (via ${door})`;
    const what = `${verb}${subresource ? ` /${subresource}` : ''}`;
    return code >= 200 && code < 300 ? `${who}: ${what}` : `${who}: ${what} refused (${code})`;
  }
  if (item.reconcile) {
    const { trigger, actions, result, error } = item.reconcile;
    const counts = new Map<string, number>();
    for (const action of actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
    const acted = [...counts].map(([kind, count]) => `${kind} ${count}`).join(', ') || 'nothing';
    return `reconcile (${trigger}): ${acted}${result === 'success' ? '' : ` — ${result}${error ? `: ${error}` : ''}`}`;
  }
  const evidence = item.evidence;
  if (!evidence) return item.kind;
  if (item.kind === 'pod')
    return `pod ${evidence.pod} ${evidence.what}${evidence.reason ? ` (${evidence.reason})` : ''}`;
  if (item.kind === 'pod-write')
    return `${evidence.actor ?? 'someone'}: ${evidence.what} pod ${evidence.pod}${evidence.type === 'Failure' ? ' refused' : ''}`;
  if (item.kind === 'condition') return `${evidence.what}${evidence.reason ? ` (${evidence.reason})` : ''}`;
  if (item.kind === 'gap')
    return `audit gap: ${evidence.message ?? evidence.what} — seen by ${evidence.reason ?? 'the app'}`;
  const count = evidence.count && evidence.count > 1 ? ` ×${evidence.count}` : '';
  return `${evidence.what}${count}${evidence.pod ? ` on ${evidence.pod}` : ''}: ${evidence.message ?? ''}`.trim();
}

function toneOf(item: TimelineItem): TimelineRow['tone'] {
  if (item.change) return item.change.code >= 200 && item.change.code < 300 ? 'info' : 'danger';
  if (item.reconcile) return item.reconcile.result === 'success' ? 'neutral' : 'warning';
  if (item.evidence?.type === 'Warning' || item.evidence?.type === 'Failure') return 'warning';
  if (item.kind === 'pod' && item.evidence?.what === 'ready') return 'success';
  return 'neutral';
}

/** The key entries of one burst share: pod transitions of one kind, Events of one reason. */
function burstKey(item: TimelineItem): string | undefined {
  if (item.kind === 'pod') return `pod:${item.evidence?.what}`;
  if (item.kind === 'event') return `event:${item.evidence?.what}:${item.evidence?.pod ? 'pod' : 'nginx'}`;
  return undefined;
}

/** A burst in words: "7 pods created", "3 pod creations refused: exceeded quota …". */
function burstText(members: readonly TimelineItem[]): string {
  const first = members[0]!;
  const evidence = first.evidence!;
  if (first.kind === 'pod') return `${members.length} pods ${evidence.what}`;
  if (evidence.what === 'FailedCreate')
    return `${members.length} pod creations refused: ${evidence.message ?? ''}`.trim();
  return `${evidence.what} ×${members.length}${evidence.pod ? ' on pods' : ''}`;
}

/**
 * The rows of the Timeline panel from a newest-first page: entries the filter keeps, and runs of like entries
 * (pod transitions of one kind, Events of one reason) within BURST_MS of each other folded into one row
 * ("7 pods created", "3 pod creations refused: …"). Pure.
 */
export function timelineRows(items: readonly TimelineItem[], filter: TimelineFilter): TimelineRow[] {
  const actor = filter.actor.trim().toLowerCase();
  const kept = items.filter(
    (item) =>
      (filter.kinds.length === 0 || filter.kinds.includes(item.kind)) &&
      (!actor || (actorOf(item) ?? '').toLowerCase().includes(actor)),
  );
  const rows: TimelineRow[] = [];
  let run: TimelineItem[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const newest = run[0]!;
    const ids = run.map((item) => item.id);
    const causes = [...new Set(run.flatMap((item) => item.causes))].filter((cause) => !ids.includes(cause));
    rows.push({
      id: newest.id,
      ids,
      kind: newest.kind,
      at: newest.at,
      text: run.length === 1 ? entryText(newest) : burstText(run),
      actor: actorOf(newest),
      tone: toneOf(newest),
      causes,
    });
    run = [];
  };
  for (const item of kept) {
    const key = burstKey(item);
    const last = run[run.length - 1];
    const joins =
      key !== undefined &&
      last !== undefined &&
      burstKey(last) === key &&
      Date.parse(last.at) - Date.parse(item.at) <= BURST_MS;
    if (!joins) flush();
    run.push(item);
  }
  flush();
  return rows;
}
