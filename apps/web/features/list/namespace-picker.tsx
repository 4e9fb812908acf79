'use client';

import { namespaceError } from '@ngx/nginx-api';
import { useId, useState, type FormEvent } from 'react';

const OTHER = '\u0000other';

/**
 * The namespace to look at: all namespaces (when the token may), the namespaces known so far, or one typed in.
 * `value` undefined means all namespaces.
 */
export function NamespacePicker({
  value,
  options,
  allowAll,
  onChange,
}: {
  value: string | undefined;
  options: string[];
  allowAll: boolean;
  onChange: (namespace: string | undefined) => void;
}) {
  const id = useId();
  const [typing, setTyping] = useState(false);
  const [typed, setTyped] = useState('');
  const problem = typed ? namespaceError(typed) : undefined;
  const choices = [...new Set([...options, ...(value ? [value] : [])])].sort();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!typed || problem) return;
    setTyping(false);
    setTyped('');
    onChange(typed);
  }

  return (
    <div className="field">
      <label htmlFor={`${id}-select`}>Namespace</label>
      <div className="inline-form">
        <select
          id={`${id}-select`}
          data-testid="namespace-select"
          value={typing ? OTHER : (value ?? '')}
          onChange={(e) => {
            const next = e.target.value;
            if (next === OTHER) return setTyping(true);
            setTyping(false);
            onChange(next === '' ? undefined : next);
          }}
        >
          {allowAll && <option value="">All namespaces</option>}
          {choices.map((ns) => (
            <option key={ns} value={ns}>
              {ns}
            </option>
          ))}
          {allowAll && <option value={OTHER}>Other namespace…</option>}
        </select>
        {typing && (
          <form onSubmit={submit} className="inline-form" noValidate>
            <input
              aria-label="Namespace name"
              placeholder="namespace"
              value={typed}
              autoFocus
              onChange={(e) => setTyped(e.target.value.trim())}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-error` : undefined}
              size={16}
            />
            <button type="submit" disabled={!typed || Boolean(problem)}>
              Show
            </button>
          </form>
        )}
      </div>
      {typing && problem && (
        <p className="field-error" id={`${id}-error`}>
          {problem}
        </p>
      )}
    </div>
  );
}
