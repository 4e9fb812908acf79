'use client';

import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { ListPanelBody } from '@/features/list/list-panel';
import { NamespacePicker } from '@/features/list/namespace-picker';
import { ReadOnlyNote } from '@/components/ui/read-only-note';
import { useReadySession } from '@/components/shell/session-provider';
import { plural } from '@/lib/ui/format';
import { nextSort, visibleRows, type Sort, type SortKey } from '@/features/list/nginx-list-rows';
import { desiredOf, readyOf } from '@/lib/nginx/nginx-view';
import { writeRefusal } from '@/lib/session/permissions';
import { isMidRollout, rolloutViewOf } from '@/features/rollout/rollout-view';
import { useLiveNginxes } from '@/lib/live/use-live-nginxes';

/** The Nginx list: namespace, filter, sortable live table with ready and up-to-date counts. */
export function NginxList() {
  const { identity, live } = useReadySession();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const limited = identity.namespaces;
  const requested = params.get('namespace') || undefined;
  // A namespace-limited token can only watch its own namespaces: the first one unless another of them is asked.
  const namespace = limited ? (requested && limited.includes(requested) ? requested : limited[0]) : requested;

  const subscription = useLiveNginxes(live, namespace);
  const { phase, nginxes } = subscription;
  const [filter, setFilter] = useState('');
  const deferredFilter = useDeferredValue(filter);
  const [sort, setSort] = useState<Sort>({ key: 'name', dir: 'asc' });
  const [seen, setSeen] = useState<string[]>([]);

  // Namespaces the data has shown so far stay in the picker when another one is selected.
  const dataNamespaces = useMemo(
    () => [...new Set(nginxes.map((n) => n.metadata.namespace ?? ''))].filter(Boolean),
    [nginxes],
  );
  if (dataNamespaces.some((ns) => !seen.includes(ns))) setSeen([...new Set([...seen, ...dataNamespaces])]);

  const setNamespace = useCallback(
    (next: string | undefined) => {
      const search = new URLSearchParams(params.toString());
      if (next) search.set('namespace', next);
      else search.delete('namespace');
      const query = search.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [params, pathname, router],
  );
  const onSort = useCallback((key: SortKey) => setSort((current) => nextSort(current, key)), []);
  const rows = useMemo(() => visibleRows(nginxes, deferredFilter, sort), [nginxes, deferredFilter, sort]);
  const counts = useMemo(
    () => ({
      notReady: nginxes.filter((n) => readyOf(n) < desiredOf(n)).length,
      rolling: nginxes.filter((n) => isMidRollout(rolloutViewOf(n))).length,
    }),
    [nginxes],
  );

  const refusal = writeRefusal(identity, namespace);
  const createHref =
    refusal !== null
      ? undefined
      : namespace
        ? `/nginxes/new?namespace=${encodeURIComponent(namespace)}`
        : '/nginxes/new';
  const filtered = deferredFilter.trim();

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Nginxes</h1>
          <p className="subtitle">
            Each Nginx runs <code>spec.replicas</code> nginx pods. Changes appear live.
          </p>
        </div>
        <div className="actions">
          {createHref ? (
            <Link href={createHref} className="button primary" data-testid="create-nginx">
              Create an Nginx
            </Link>
          ) : (
            refusal && <ReadOnlyNote reason={refusal} />
          )}
        </div>
      </div>

      <div className="toolbar">
        <NamespacePicker
          value={namespace}
          options={limited ?? seen}
          allowAll={!limited}
          onChange={setNamespace}
        />
        <div className="field grow">
          <label htmlFor="nginx-filter">Filter</label>
          <input
            id="nginx-filter"
            type="search"
            placeholder="Name, namespace or image"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </div>
      </div>

      <section className="panel" aria-labelledby="nginx-list-title">
        <div className="panel-head">
          <h2 id="nginx-list-title">{namespace ? `In ${namespace}` : 'All namespaces'}</h2>
          {phase === 'ready' && (
            <span className="muted small" data-testid="nginx-count" aria-live="polite">
              {filtered
                ? `${rows.length} of ${plural(nginxes.length, 'Nginx', 'Nginxes')}`
                : plural(nginxes.length, 'Nginx', 'Nginxes')}
              {counts.notReady > 0 && ` · ${counts.notReady} not fully ready`}
              {counts.rolling > 0 && ` · ${counts.rolling} rolling out`}
            </span>
          )}
        </div>
        <ListPanelBody
          live={subscription}
          rows={rows}
          filter={filtered}
          onClearFilter={() => setFilter('')}
          sort={sort}
          onSort={onSort}
          where={namespace ? `namespace ${namespace}` : 'any namespace'}
          createHref={createHref}
          view={`${namespace ?? ''}|${deferredFilter}`}
        />
      </section>
    </>
  );
}
