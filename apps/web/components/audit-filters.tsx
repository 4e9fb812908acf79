'use client';

import { useEffect, useState, type FormEvent } from 'react';
import type { AuditFilters as Filters, AuditKind } from '../lib/api-client';
import { fromLocalInput, toLocalInput } from '../lib/format';

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

/** Namespace, name, result and time range; applied on submit (they end up in the URL). */
export function AuditFilters({
  kind,
  filters,
  namespaces,
  onApply,
}: {
  kind: AuditKind;
  filters: Filters;
  /** The namespaces a limited token may read (a select instead of free text), or null. */
  namespaces: string[] | null;
  onApply: (filters: Filters) => void;
}) {
  const [draft, setDraft] = useState({
    namespace: filters.namespace ?? '',
    name: filters.name ?? '',
    result: filters.result ?? '',
    since: toLocalInput(filters.since),
    until: toLocalInput(filters.until),
  });
  useEffect(() => {
    setDraft({
      namespace: filters.namespace ?? '',
      name: filters.name ?? '',
      result: filters.result ?? '',
      since: toLocalInput(filters.since),
      until: toLocalInput(filters.until),
    });
  }, [filters.namespace, filters.name, filters.result, filters.since, filters.until]);

  const since = fromLocalInput(draft.since);
  const until = fromLocalInput(draft.until);
  const rangeProblem = since && until && since > until ? '“Since” must be before “until”.' : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (rangeProblem) return;
    onApply({
      namespace: draft.namespace.trim() || undefined,
      name: draft.name.trim() || undefined,
      result: draft.result || undefined,
      since,
      until,
    });
  }

  const set = (key: keyof typeof draft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  return (
    <form
      className="toolbar"
      onSubmit={submit}
      noValidate
      aria-label="Audit filters"
      data-testid="audit-filters"
    >
      <div className="field">
        <label htmlFor="audit-namespace">Namespace</label>
        {namespaces ? (
          <select
            id="audit-namespace"
            value={draft.namespace}
            onChange={(e) => set('namespace')(e.target.value)}
          >
            {namespaces.map((ns) => (
              <option key={ns}>{ns}</option>
            ))}
          </select>
        ) : (
          <input
            id="audit-namespace"
            value={draft.namespace}
            placeholder="any"
            size={22}
            spellCheck={false}
            onChange={(e) => set('namespace')(e.target.value)}
          />
        )}
      </div>
      <div className="field">
        <label htmlFor="audit-name">Name</label>
        <input
          id="audit-name"
          value={draft.name}
          placeholder="any"
          size={16}
          spellCheck={false}
          onChange={(e) => set('name')(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-result">Result</label>
        <select id="audit-result" value={draft.result} onChange={(e) => set('result')(e.target.value)}>
          <option value="">Any</option>
          {RESULTS[kind].map((r) => (
            <option key={r.value} value={r.value}>
              {r.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-since">Since</label>
        <input
          id="audit-since"
          type="datetime-local"
          value={draft.since}
          onChange={(e) => set('since')(e.target.value)}
          aria-invalid={rangeProblem ? true : undefined}
          aria-describedby={rangeProblem ? 'audit-range-error' : undefined}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-until">Until</label>
        <input
          id="audit-until"
          type="datetime-local"
          value={draft.until}
          onChange={(e) => set('until')(e.target.value)}
          aria-invalid={rangeProblem ? true : undefined}
          aria-describedby={rangeProblem ? 'audit-range-error' : undefined}
        />
      </div>
      <div className="field">
        <span className="label" aria-hidden="true">
          &nbsp;
        </span>
        <div className="inline-form">
          <button type="submit" className="primary">
            Apply
          </button>
          <button
            type="button"
            onClick={() => onApply({ namespace: namespaces ? draft.namespace || undefined : undefined })}
          >
            Clear
          </button>
        </div>
      </div>
      {rangeProblem && (
        <p className="field-error" id="audit-range-error" style={{ flexBasis: '100%' }}>
          {rangeProblem}
        </p>
      )}
    </form>
  );
}
