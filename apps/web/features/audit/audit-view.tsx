'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useMemo } from 'react';
import { AuditFilters } from '@/features/audit/audit-filters';
import { AuditResults } from '@/features/audit/audit-results';
import { AuditTabs } from '@/features/audit/audit-tabs';
import { ExportButtons } from '@/features/audit/export-buttons';
import { useReadySession } from '@/components/shell/session-provider';
import type { AuditKind, ChangeItem, ReconcileItem } from '@/lib/api/api-client';
import {
  auditQueryOf,
  auditSearchOf,
  isFiltered,
  normalisedQuery,
  type AuditViewFilters,
} from '@/features/audit/audit-filters-url';
import { useAuditList } from '@/features/audit/use-audit-list';

const PAGE_SIZE = 50;

/**
 * Audit history: the reconcile timeline and the change log, filtered, paged and exportable. The tab and the
 * filters live in the URL (a link or a reload shows the same list); the URL is the only state they have.
 */
export function AuditView() {
  const { api, identity } = useReadySession();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const limited = identity.namespaces;
  const search = params.toString();
  const query = useMemo(() => auditQueryOf(new URLSearchParams(search), limited), [search, limited]);
  const { kind, filters } = query;
  const list = useAuditList<ReconcileItem | ChangeItem>(api, kind, filters, PAGE_SIZE);

  const navigate = (next: { kind?: AuditKind; filters?: AuditViewFilters }) => {
    const target = normalisedQuery(next.kind ?? kind, next.filters ?? filters, limited);
    router.replace(`${pathname}${auditSearchOf(target)}`, { scroll: false });
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit history</h1>
          <p className="subtitle">
            Reconciles that acted or failed, and every write made through the API, newest first.
          </p>
        </div>
        <div className="actions">
          <ExportButtons api={api} kind={kind} filters={filters} />
        </div>
      </div>
      <AuditTabs kind={kind} onSelect={(next) => navigate({ kind: next })} />
      <AuditFilters
        key={auditSearchOf(query)}
        kind={kind}
        filters={filters}
        namespaces={limited}
        onApply={(next) => navigate({ filters: next })}
      />
      <AuditResults
        kind={kind}
        list={list}
        filtered={isFiltered(filters, limited)}
        onClear={() => navigate({ filters: {} })}
      />
    </>
  );
}
