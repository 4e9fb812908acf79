import { CHANGE_VERBS } from '@ngx/nginx-api';
import type { AuditFilters, AuditKind } from '@/lib/api/api-client';
import { fromLocalInput, toLocalInput } from '@/lib/ui/format';

/** The audit page's two lists, in tab order. */
export const AUDIT_TABS: readonly { kind: AuditKind; label: string }[] = [
  { kind: 'reconciles', label: 'Reconciles' },
  { kind: 'changes', label: 'Changes' },
];

/** The results each list can be filtered by, as the API takes them. */
export const RESULTS: Record<AuditKind, { value: string; label: string }[]> = {
  reconciles: [
    { value: 'success', label: 'Success' },
    { value: 'error', label: 'Error' },
    { value: 'requeued', label: 'Requeued' },
  ],
  changes: [
    { value: 'success', label: 'Success (2xx)' },
    { value: 'failure', label: 'Failure' },
  ],
};

/** The verbs a change is recorded with (`rollback` writes an old revision back). */
export { CHANGE_VERBS };

/** The list filters, plus the verb of a change (the changes list only). */
export interface AuditViewFilters extends AuditFilters {
  verb?: string;
}

/** What the audit page shows: which list, filtered how. */
export interface AuditQuery {
  kind: AuditKind;
  filters: AuditViewFilters;
}

const FILTER_KEYS = ['namespace', 'name', 'result', 'verb', 'since', 'until'] as const;

/**
 * Keeps only what `kind` can be filtered by: a result of that list, a verb only for changes, and for a token
 * limited to some namespaces one of them (its first when none or another is asked for). Empty values go.
 */
export function normalisedQuery(
  kind: AuditKind,
  filters: AuditViewFilters,
  limited: string[] | null,
): AuditQuery {
  const clean: AuditViewFilters = {};
  for (const key of FILTER_KEYS) if (filters[key]) clean[key] = filters[key];
  if (clean.result && !RESULTS[kind].some((r) => r.value === clean.result)) delete clean.result;
  if (clean.verb && (kind !== 'changes' || !(CHANGE_VERBS as readonly string[]).includes(clean.verb)))
    delete clean.verb;
  if (limited) {
    if (!clean.namespace || !limited.includes(clean.namespace)) clean.namespace = limited[0];
    if (!clean.namespace) delete clean.namespace;
  }
  return { kind, filters: clean };
}

/** The query a page URL's search parameters describe (`?tab=changes&verb=rollback`), normalised. */
export function auditQueryOf(
  params: { get(key: string): string | null },
  limited: string[] | null,
): AuditQuery {
  const kind: AuditKind = params.get('tab') === 'changes' ? 'changes' : 'reconciles';
  const filters: AuditViewFilters = {};
  for (const key of FILTER_KEYS) filters[key] = params.get(key) || undefined;
  return normalisedQuery(kind, filters, limited);
}

/**
 * The URL search (`?…`, or '' for none) of a query: the inverse of auditQueryOf for a normalised query. The
 * reconciles tab is the default and is not written.
 */
export function auditSearchOf(query: AuditQuery): string {
  const search = new URLSearchParams();
  if (query.kind !== 'reconciles') search.set('tab', query.kind);
  for (const key of FILTER_KEYS) {
    const value = query.filters[key];
    if (value) search.set(key, value);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Whether the user narrowed the list (a limited token's namespace is not their choice). */
export function isFiltered(filters: AuditViewFilters, limited: string[] | null): boolean {
  return (
    FILTER_KEYS.some((key) => key !== 'namespace' && Boolean(filters[key])) ||
    (!limited && Boolean(filters.namespace))
  );
}

/** The filter form's text: times as datetime-local values. */
export type FilterDraft = Record<(typeof FILTER_KEYS)[number], string>;

/** The form's text for the filters shown. */
export function draftOf(filters: AuditViewFilters): FilterDraft {
  return {
    namespace: filters.namespace ?? '',
    name: filters.name ?? '',
    result: filters.result ?? '',
    verb: filters.verb ?? '',
    since: toLocalInput(filters.since),
    until: toLocalInput(filters.until),
  };
}

/** The filters a draft asks for (trimmed, times in UTC), or the problem that keeps it from being applied. */
export function filtersOfDraft(draft: FilterDraft): { filters: AuditViewFilters; problem?: string } {
  const since = fromLocalInput(draft.since);
  const until = fromLocalInput(draft.until);
  const filters: AuditViewFilters = {
    namespace: draft.namespace.trim() || undefined,
    name: draft.name.trim() || undefined,
    result: draft.result || undefined,
    verb: draft.verb || undefined,
    since,
    until,
  };
  return since && until && since > until
    ? { filters, problem: '“Since” must be before “until”.' }
    : { filters };
}
