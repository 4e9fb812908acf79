'use client';

import type { KeyboardEvent } from 'react';
import type { AuditKind } from '@/lib/api/api-client';
import { AUDIT_TABS } from '@/features/audit/audit-filters-url';

/** The two lists as tabs (arrow keys move between them); `audit-panel` is the tab panel they control. */
export function AuditTabs({ kind, onSelect }: { kind: AuditKind; onSelect: (kind: AuditKind) => void }) {
  const onKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const step = event.key === 'ArrowRight' ? 1 : AUDIT_TABS.length - 1;
    const next = AUDIT_TABS[(AUDIT_TABS.findIndex((t) => t.kind === kind) + step) % AUDIT_TABS.length]!;
    onSelect(next.kind);
    requestAnimationFrame(() => document.getElementById(`tab-${next.kind}`)?.focus());
  };
  return (
    <div className="tabs" role="tablist" aria-label="Audit records">
      {AUDIT_TABS.map((tab) => (
        <button
          key={tab.kind}
          id={`tab-${tab.kind}`}
          type="button"
          role="tab"
          aria-selected={kind === tab.kind}
          aria-controls="audit-panel"
          tabIndex={kind === tab.kind ? 0 : -1}
          onClick={() => onSelect(tab.kind)}
          onKeyDown={onKey}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
