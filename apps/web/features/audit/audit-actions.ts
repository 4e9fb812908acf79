import type { ReconcileAction } from '@/lib/api/api-client';

const PAST: Record<string, string> = {
  create: 'created',
  delete: 'deleted',
  adopt: 'adopted',
  release: 'released',
};

const OBJECTS: Record<string, string> = {
  config: 'ConfigMap',
  revision: 'ControllerRevision',
  service: 'Service',
  budget: 'PodDisruptionBudget',
  ingress: 'Ingress',
};

const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The summary an action counts under, and that summary for `n` of them. */
function summaryOf(action: ReconcileAction): [key: string, text: (n: number) => string] {
  const past = PAST[action.kind];
  if (past && action.pod !== undefined) return [`${action.kind} pod`, (n) => `${past} ${counted(n, 'pod')}`];
  if (past) return [`${action.kind} object`, (n) => `${past} ${counted(n, 'object')}`];
  switch (action.kind) {
    case 'status':
      return ['status', () => 'status updated'];
    case 'config':
      return ['config', () => 'config written'];
    case 'revision':
      return ['revision', () => 'revision recorded'];
    case 'analysis':
      return [
        `analysis ${action.measurement?.phase ?? ''}`,
        (n) => `${counted(n, 'measurement')} ${action.measurement?.phase ?? 'taken'}`,
      ];
    case 'canary':
      return [`canary ${action.reason ?? ''}`, () => `canary ${action.reason ?? 'moved'}`];
    case 'route':
      return [`route ${action.reason ?? ''}`, () => `route set to ${action.reason ?? '?'}`];
    case 'gate':
      return [`gate ${action.reason ?? ''}`, () => `gate ${action.reason ?? 'called'}`];
    case 'blue-green':
      return [`blue-green ${action.reason ?? ''}`, () => `blue-green ${action.reason ?? 'moved'}`];
    default: {
      const what = action.kind === 'budget' ? 'disruption budget' : action.kind;
      const done = action.reason ?? 'synced';
      return [`${action.kind} ${done}`, () => `${what} ${done}`];
    }
  }
}

/**
 * A reconcile's actions in one line, grouped in first-seen order: "created 2 pods · status updated". Only pod
 * actions count as pods: a deleted ConfigMap is an object.
 */
export function summariseActions(actions: readonly ReconcileAction[]): string {
  if (actions.length === 0) return 'no actions';
  const groups = new Map<string, { text: (n: number) => string; n: number }>();
  for (const action of actions) {
    const [key, text] = summaryOf(action);
    const group = groups.get(key);
    if (group) group.n++;
    else groups.set(key, { text, n: 1 });
  }
  return [...groups.values()].map((g) => g.text(g.n)).join(' · ');
}

/** One action as a sentence: "created pod web-abc12 (scale up)", "created Service web (…)". */
export function describeAction(action: ReconcileAction): string {
  const reason = action.reason ? ` (${action.reason})` : '';
  if (action.kind === 'status') return 'wrote status';
  if (action.kind === 'analysis') {
    const m = action.measurement;
    const value = m?.value === undefined ? '' : ` ${m.value}`;
    const why = m?.message ? `: ${m.message}` : '';
    return `analysis run ${action.object ?? '?'} measured${value}: ${m?.phase ?? '?'}${why} (${m?.query ?? '?'})`;
  }
  if (action.kind === 'canary')
    return `canary ${action.reason ?? 'moved'}${action.object ? ` by analysis run ${action.object}` : ''}`;
  if (action.kind === 'route') return `wrote ${action.object ?? 'the HTTPRoute'}: ${action.reason ?? '?'}`;
  if (action.kind === 'gate') return `gate ${action.object ?? '?'} ${action.reason ?? 'called'}`;
  if (action.kind === 'blue-green')
    return `blue-green ${action.reason ?? 'moved'}${action.revision ? ` (${action.revision})` : ''}${action.object ? ` by analysis run ${action.object}` : ''}`;
  const past = PAST[action.kind];
  if (past && action.pod !== undefined) return `${past} pod ${action.pod}${reason}`;
  if (past) return `${past} ${action.object ?? '?'}${reason}`;
  const object = `${OBJECTS[action.kind] ?? action.kind} ${action.object ?? '?'}`;
  if (action.kind === 'config' || action.kind === 'revision')
    return `created ${object}${action.revision ? ` for revision ${action.revision}` : ''}`;
  return `${action.reason ?? 'synced'} ${object}`;
}
