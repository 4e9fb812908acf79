'use client';

import { useState, type FormEvent } from 'react';
import { Choice } from '@/features/audit/filter-choice';
import type { AuditKind } from '@/lib/api/api-client';
import {
  CHANGE_VERBS,
  draftOf,
  filtersOfDraft,
  RESULTS,
  type AuditViewFilters,
  type FilterDraft,
} from '@/features/audit/audit-filters-url';

/**
 * Namespace, name, result, verb (changes only) and time range, applied on submit (they end up in the URL). The
 * parent remounts it (`key`) when the applied filters change, so the form always starts from them.
 */
export function AuditFilters({
  kind,
  filters,
  namespaces,
  onApply,
}: {
  kind: AuditKind;
  filters: AuditViewFilters;
  /** The namespaces a limited token may read (a select instead of free text), or null. */
  namespaces: string[] | null;
  onApply: (filters: AuditViewFilters) => void;
}) {
  const [draft, setDraft] = useState<FilterDraft>(() => draftOf(filters));
  const { filters: asked, problem } = filtersOfDraft(draft);
  const set = (key: keyof FilterDraft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const range = {
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? 'audit-range-error' : undefined,
  } as const;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!problem) onApply(asked);
  }

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
      <Choice
        id="audit-result"
        label="Result"
        value={draft.result}
        options={RESULTS[kind]}
        onChange={set('result')}
      />
      {kind === 'changes' && (
        <Choice
          id="audit-verb"
          label="Verb"
          value={draft.verb}
          options={CHANGE_VERBS.map((verb) => ({ value: verb, label: verb }))}
          onChange={set('verb')}
        />
      )}
      <div className="field">
        <label htmlFor="audit-since">Since</label>
        <input
          id="audit-since"
          type="datetime-local"
          value={draft.since}
          onChange={(e) => set('since')(e.target.value)}
          {...range}
        />
      </div>
      <div className="field">
        <label htmlFor="audit-until">Until</label>
        <input
          id="audit-until"
          type="datetime-local"
          value={draft.until}
          onChange={(e) => set('until')(e.target.value)}
          {...range}
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
      {problem && (
        <p className="field-error" id="audit-range-error" style={{ flexBasis: '100%' }}>
          {problem}
        </p>
      )}
    </form>
  );
}
