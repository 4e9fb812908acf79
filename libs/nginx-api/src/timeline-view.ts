import type { TimelineItem, TimelineKind } from './controlplane.js';

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
  /** Each of `causes` in words, where the page holds it ("erin scaled 2 → 4 via kube-apiserver"); else its id. */
  causeTexts: string[];
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

/** The user the cluster's own bookkeeping writes come as: kubelets, and kwok standing in for them. */
export function isBookkeeper(actor: string | null | undefined): boolean {
  return !!actor && (actor.startsWith('system:node:') || actor === 'kwok-controller');
}

/**
 * The key entries of one fold share: a burst (one after another, each within BURST_MS of the last) of pod
 * transitions of one kind or of Events of one reason; or reconciles that changed nothing, by result, however far
 * apart (retries with backoff) and across the bursts between them.
 */
function foldKey(item: TimelineItem): { key: string; burst: boolean } | undefined {
  if (item.kind === 'pod') return { key: `pod:${item.evidence?.what}`, burst: true };
  if (item.kind === 'event')
    return { key: `event:${item.evidence?.what}:${item.evidence?.pod ? 'pod' : 'nginx'}`, burst: true };
  if (item.reconcile && item.reconcile.actions.length === 0)
    return { key: `reconcile:nothing:${item.reconcile.result}`, burst: false };
  return undefined;
}

/** A fold in words: "7 pods created", "3 pod creations refused: …", "12 reconciles that changed nothing". */
function foldText(members: readonly TimelineItem[]): string {
  const first = members[0]!;
  if (first.reconcile) {
    const { result, error } = first.reconcile;
    return `${members.length} reconciles that changed nothing${result === 'success' ? '' : ` — ${result}${error ? `: ${error}` : ''}`}`;
  }
  const evidence = first.evidence!;
  if (first.kind === 'pod') return `${members.length} pods ${evidence.what}`;
  if (evidence.what === 'FailedCreate')
    return `${members.length} pod creations refused: ${evidence.message ?? ''}`.trim();
  return `${evidence.what} ×${members.length}${evidence.pod ? ' on pods' : ''}`;
}

/** A number from a spec, if it holds one at `key`. */
const specNumber = (spec: unknown, key: string): number | undefined => {
  const value = (spec as Record<string, unknown> | null | undefined)?.[key];
  return typeof value === 'number' ? value : undefined;
};
const specText = (spec: unknown, key: string): string | undefined => {
  const value = (spec as Record<string, unknown> | null | undefined)?.[key];
  return typeof value === 'string' ? value : undefined;
};

/** What the verbs that say it all did, in words. */
const VERB_PHRASES: Readonly<Record<string, string>> = {
  create: 'created it',
  delete: 'deleted it',
  deletecollection: 'deleted it',
  rollback: 'rolled it back',
  promote: 'promoted its rollout',
  abort: 'aborted its rollout',
};

/** What a change did, in words: "scaled 2 → 4", "set the image nginx:1.27 → nginx:1.28", "created it". */
function changePhrase(change: NonNullable<TimelineItem['change']>): string {
  const { verb, specBefore, specAfter } = change;
  const said = VERB_PHRASES[verb];
  if (said) return said;
  const [replicasBefore, replicasAfter] = [
    specNumber(specBefore, 'replicas'),
    specNumber(specAfter, 'replicas'),
  ];
  const [imageBefore, imageAfter] = [specText(specBefore, 'image'), specText(specAfter, 'image')];
  const phrases: string[] = [];
  if (replicasBefore !== undefined && replicasAfter !== undefined && replicasBefore !== replicasAfter)
    phrases.push(`scaled ${replicasBefore} → ${replicasAfter}`);
  if (imageBefore && imageAfter && imageBefore !== imageAfter)
    phrases.push(`set the image ${imageBefore} → ${imageAfter}`);
  if (phrases.length > 0) return phrases.join(' and ');
  return change.subresource
    ? `wrote /${change.subresource}`
    : `${verb === 'update' ? 'updated' : 'patched'} it`;
}

/**
 * A cause in words, for the line of the entry it caused: "erin scaled 2 → 4 via kube-apiserver", "the controller
 * created 2 pods", or the entry's own words.
 */
export function causeText(item: TimelineItem): string {
  if (item.change) {
    const { actor, door, code } = item.change;
    const refused = code >= 200 && code < 300 ? '' : ` (refused, ${code})`;
    return `${actor || 'someone'} ${changePhrase(item.change)} via ${door}${refused}`;
  }
  if (item.reconcile) {
    const counts = new Map<string, number>();
    for (const action of item.reconcile.actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
    const acted = [...counts].map(([kind, count]) => `${kind} ${count}`).join(', ');
    return acted
      ? `the controller's reconcile (${acted})`
      : `the controller's reconcile (${item.reconcile.trigger})`;
  }
  return entryText(item);
}

/**
 * The rows of the Timeline panel from a newest-first page: the entries the filter keeps, read at a glance.
 * - Like entries fold into one row at the newest one's place: bursts of pod transitions of one kind and of Events
 *   of one reason, one after another within BURST_MS ("7 pods created", "3 pod creations refused: …"), and
 *   reconciles that changed nothing ("12 reconciles that changed nothing"), also across the bursts between them,
 *   but never across a change, a reconcile that acted, a condition, a pod write or a gap. A reconcile folded into
 *   a row above leaves no row of its own, so the burst around it stays one.
 * - The cluster's bookkeeping deletes (a kubelet's, or kwok's, ending a pod's graceful deletion) fold under the
 *   row that shows that pod going.
 * - Each cause is also given in words, where the page holds it.
 * Pure.
 */
export function timelineRows(items: readonly TimelineItem[], filter: TimelineFilter): TimelineRow[] {
  const actor = filter.actor.trim().toLowerCase();
  const kept = items.filter(
    (item) =>
      (filter.kinds.length === 0 || filter.kinds.includes(item.kind)) &&
      (!actor || (actorOf(item) ?? '').toLowerCase().includes(actor)),
  );
  const groups: TimelineItem[][] = [];
  /** Open folds of the current stretch between two barriers, by key. */
  let open = new Map<string, TimelineItem[]>();
  /** The group showing each pod going (terminating, deleted or a delete), by pod name. */
  const podGoing = new Map<string, TimelineItem[]>();
  const bookkeeping: TimelineItem[] = [];
  /** The group of the row last shown, which a burst must directly follow to join it. */
  let previous: TimelineItem[] | undefined;
  for (const item of kept) {
    if (item.kind === 'pod-write' && item.evidence?.what === 'delete' && isBookkeeper(item.evidence.actor)) {
      bookkeeping.push(item); // placed once the older entries are read
      continue;
    }
    const fold = foldKey(item);
    let group: TimelineItem[] | undefined;
    if (fold) {
      const current = open.get(fold.key);
      const last = current?.[current.length - 1];
      const joins = fold.burst
        ? current === previous && last !== undefined && Date.parse(last.at) - Date.parse(item.at) <= BURST_MS
        : current !== undefined;
      if (joins) group = current;
    } else open = new Map();
    if (group) group.push(item);
    else {
      group = [item];
      groups.push(group);
      if (fold) open.set(fold.key, group);
    }
    // An entry that joins a fold shown further up leaves no row here, so it does not break the burst around it
    // (each refused retry is a reconcile that changed nothing and then its FailedCreate).
    const shownHere = !(fold && !fold.burst && group.length > 1);
    if (shownHere) previous = group;
    const pod = item.evidence?.pod;
    const going =
      (item.kind === 'pod' && (item.evidence?.what === 'terminating' || item.evidence?.what === 'deleted')) ||
      (item.kind === 'pod-write' && item.evidence?.what === 'delete');
    if (pod && going && !podGoing.has(pod)) podGoing.set(pod, group);
  }
  for (const item of bookkeeping) {
    const under = item.evidence?.pod ? podGoing.get(item.evidence.pod) : undefined;
    if (under) under.push(item);
    else {
      // Nothing on this page shows the pod going: the bookkeeping write stands alone, at its place.
      const index = groups.findIndex((group) => Date.parse(group[0]!.at) < Date.parse(item.at));
      groups.splice(index < 0 ? groups.length : index, 0, [item]);
    }
  }
  const byId = new Map(items.map((item) => [item.id, item]));
  const finishing = new Set(bookkeeping);
  return groups.map((members) => {
    const shown = members.filter((item) => !finishing.has(item));
    const lead = shown[0] ?? members[0]!;
    const ids = members.map((item) => item.id);
    const causes = [...new Set(members.flatMap((item) => item.causes))].filter(
      (cause) => !ids.includes(cause),
    );
    const finishers = [...new Set(members.filter((item) => finishing.has(item)).map(actorOf))];
    const text =
      (shown.length <= 1 ? entryText(lead) : foldText(shown)) +
      (shown.length > 0 && finishers.length > 0 ? ` (deletion finished by ${finishers.join(', ')})` : '');
    return {
      id: lead.id,
      ids,
      kind: lead.kind,
      at: lead.at,
      text,
      actor: actorOf(lead),
      tone: toneOf(lead),
      causes,
      causeTexts: causes.map((cause) => {
        const item = byId.get(cause);
        return item ? causeText(item) : cause;
      }),
    };
  });
}
