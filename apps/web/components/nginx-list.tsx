'use client';

import type { Nginx } from '@ngx/nginx-api';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useDeferredValue, useMemo, useState } from 'react';
import { plural } from '../lib/format';
import { createdAt, desiredOf, healthRank, imageOf, readyOf } from '../lib/nginx-view';
import { canWrite } from '../lib/session';
import { useLiveNginxes } from '../lib/use-live-nginxes';
import { EmptyState } from './empty-state';
import { ErrorState } from './error-state';
import { NamespacePicker } from './namespace-picker';
import { NginxTable, type Sort, type SortKey } from './nginx-table';
import { useReadySession } from './session-provider';
import { Skeleton } from './skeleton';

const text = (value: string | undefined) => value ?? '';

const COMPARE: Record<SortKey, (a: Nginx, b: Nginx) => number> = {
  name: (a, b) => text(a.metadata.name).localeCompare(text(b.metadata.name)),
  namespace: (a, b) => text(a.metadata.namespace).localeCompare(text(b.metadata.namespace)),
  ready: (a, b) => {
    const ratio = (n: Nginx) => (desiredOf(n) === 0 ? 1 : readyOf(n) / desiredOf(n));
    return ratio(a) - ratio(b) || desiredOf(a) - desiredOf(b);
  },
  conditions: (a, b) => healthRank(a) - healthRank(b),
  image: (a, b) => imageOf(a).localeCompare(imageOf(b)),
  // Ascending age: the youngest first.
  age: (a, b) => text(createdAt(b)).localeCompare(text(createdAt(a))),
};

const byKey = (a: Nginx, b: Nginx) => COMPARE.namespace(a, b) || COMPARE.name(a, b);

/** The Nginx list: namespace, filter, sortable live table. */
export function NginxList() {
  const { identity, live } = useReadySession();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const limited = identity.namespaces;
  const requested = params.get('namespace') || undefined;
  // A namespace-limited token can only watch its own namespaces: the first one unless another of them is asked.
  const namespace = limited ? (requested && limited.includes(requested) ? requested : limited[0]) : requested;

  const { phase, nginxes, error, retry } = useLiveNginxes(live, namespace);
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

  const onSort = useCallback(
    (key: SortKey) =>
      setSort((current) =>
        current.key === key ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' },
      ),
    [],
  );

  const rows = useMemo(() => {
    const needle = deferredFilter.trim().toLowerCase();
    const matching = needle
      ? nginxes.filter(
          (n) =>
            text(n.metadata.name).toLowerCase().includes(needle) ||
            text(n.metadata.namespace).toLowerCase().includes(needle) ||
            imageOf(n).toLowerCase().includes(needle),
        )
      : nginxes.slice();
    const compare = COMPARE[sort.key];
    const sign = sort.dir === 'asc' ? 1 : -1;
    return matching.sort((a, b) => sign * compare(a, b) || byKey(a, b));
  }, [nginxes, deferredFilter, sort]);

  const mayCreate = canWrite(identity, namespace);
  const createHref = namespace ? `/nginxes/new?namespace=${encodeURIComponent(namespace)}` : '/nginxes/new';
  const notReady = nginxes.filter((n) => readyOf(n) < desiredOf(n)).length;
  const where = namespace ? `namespace ${namespace}` : 'any namespace';

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Nginxes</h1>
          <p className="subtitle">
            Each Nginx runs <code>spec.replicas</code> nginx pods. Changes appear live.
          </p>
        </div>
        {mayCreate && (
          <div className="actions">
            <Link href={createHref} className="button primary" data-testid="create-nginx">
              Create an Nginx
            </Link>
          </div>
        )}
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
              {deferredFilter.trim()
                ? `${rows.length} of ${plural(nginxes.length, 'Nginx', 'Nginxes')}`
                : plural(nginxes.length, 'Nginx', 'Nginxes')}
              {notReady > 0 && ` · ${notReady} not fully ready`}
            </span>
          )}
        </div>
        {phase === 'loading' && <Skeleton rows={8} label="Loading Nginxes" />}
        {phase === 'error' && (
          <ErrorState
            title="Could not load the Nginxes"
            message={error ? `${error.message} (${error.code} ${error.reason})` : 'The subscription failed.'}
            onRetry={retry}
          />
        )}
        {phase === 'ready' && nginxes.length === 0 && (
          <EmptyState
            title={`No Nginxes in ${where}`}
            action={
              mayCreate ? (
                <Link href={createHref} className="button primary">
                  Create an Nginx
                </Link>
              ) : undefined
            }
          >
            {mayCreate
              ? 'Create an Nginx to run nginx pods here; it appears in this list as soon as it exists.'
              : 'Your role can only view. Ask an editor to create an Nginx; it will appear here as soon as it exists.'}
          </EmptyState>
        )}
        {phase === 'ready' && nginxes.length > 0 && rows.length === 0 && (
          <EmptyState
            title={`No Nginx matches “${deferredFilter.trim()}”`}
            action={
              <button type="button" onClick={() => setFilter('')}>
                Clear the filter
              </button>
            }
          >
            The filter looks at names, namespaces and images.
          </EmptyState>
        )}
        {phase === 'ready' && rows.length > 0 && (
          <NginxTable
            nginxes={rows}
            sort={sort}
            onSort={onSort}
            view={`${namespace ?? ''}|${deferredFilter}`}
          />
        )}
      </section>
    </>
  );
}
