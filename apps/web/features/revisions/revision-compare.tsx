'use client';

import type { RevisionItem } from '@ngx/nginx-api';
import { useId, useState } from 'react';
import { defaultComparison } from '@/features/revisions/revision-diff';
import { RevisionDiff } from './revision-diff-view';

const label = (item: RevisionItem) => `#${item.revision}${item.current ? ' (current)' : ''}`;

/**
 * Picks two revisions ("Compare from", "Compare to"; by default the one before the current against the current)
 * and shows their diff. A pick whose revision left the list falls back to the default.
 */
export function RevisionCompare({ items }: { items: readonly RevisionItem[] }) {
  const id = useId();
  const [picked, setPicked] = useState<{ from?: number; to?: number }>({});
  const fallback = defaultComparison(items);
  if (!fallback) return null;

  const find = (n: number | undefined) => items.find((item) => item.revision === n);
  const from = find(picked.from) ?? find(fallback.from)!;
  const to = find(picked.to) ?? find(fallback.to)!;

  const select = (which: 'from' | 'to', text: string, value: RevisionItem) => (
    <div className="field">
      <label htmlFor={`${id}-${which}`}>{text}</label>
      <select
        id={`${id}-${which}`}
        value={value.revision}
        onChange={(e) => setPicked((p) => ({ ...p, [which]: Number(e.target.value) }))}
      >
        {items.map((item) => (
          <option key={item.revision} value={item.revision}>
            {label(item)} {item.template.image}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <section className="rev-compare" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Compare revisions</h3>
      <div className="rev-selects">
        {select('from', 'Compare from', from)}
        {select('to', 'Compare to', to)}
      </div>
      <RevisionDiff
        before={from.template}
        after={to.template}
        fromLabel={`Revision ${label(from)}`}
        toLabel={`Revision ${label(to)}`}
      />
    </section>
  );
}
