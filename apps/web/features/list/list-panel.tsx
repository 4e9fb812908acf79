import type { Nginx } from '@ngx/nginx-api';
import Link from 'next/link';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { NginxTable } from '@/features/list/nginx-table';
import { Skeleton } from '@/components/ui/skeleton';
import type { Sort, SortKey } from '@/features/list/nginx-list-rows';
import type { LiveNginxes } from '@/lib/live/use-live-nginxes';

/**
 * What the list panel shows below its head: a skeleton while loading, the error with Retry, an empty state
 * (with a Create link only when `createHref` is given), "no match" for a filter, or the table of `rows`.
 */
export function ListPanelBody({
  live,
  rows,
  filter,
  onClearFilter,
  sort,
  onSort,
  where,
  createHref,
  view,
}: {
  live: LiveNginxes;
  rows: Nginx[];
  /** The filter as applied (deferred, trimmed). */
  filter: string;
  onClearFilter: () => void;
  sort: Sort;
  onSort: (key: SortKey) => void;
  /** "namespace team-a" or "any namespace". */
  where: string;
  /** Where to create an Nginx, or undefined when this identity may not. */
  createHref: string | undefined;
  /** Changes when what is shown changes (the table scrolls back to the top). */
  view: string;
}) {
  const { phase, nginxes, error, retry } = live;
  if (phase === 'loading') return <Skeleton rows={8} label="Loading Nginxes" />;
  if (phase === 'error')
    return (
      <ErrorState
        title="Could not load the Nginxes"
        message={error ? `${error.message} (${error.code} ${error.reason})` : 'The subscription failed.'}
        onRetry={retry}
      />
    );
  if (nginxes.length === 0)
    return (
      <EmptyState
        title={`No Nginxes in ${where}`}
        action={
          createHref ? (
            <Link href={createHref} className="button primary">
              Create an Nginx
            </Link>
          ) : undefined
        }
      >
        {createHref
          ? 'Create an Nginx to run nginx pods here; it appears in this list as soon as it exists.'
          : 'Your role can only view. Ask an editor to create an Nginx; it will appear here as soon as it exists.'}
      </EmptyState>
    );
  if (rows.length === 0)
    return (
      <EmptyState
        title={`No Nginx matches “${filter}”`}
        action={
          <button type="button" onClick={onClearFilter}>
            Clear the filter
          </button>
        }
      >
        The filter looks at names, namespaces and images.
      </EmptyState>
    );
  return <NginxTable nginxes={rows} sort={sort} onSort={onSort} view={view} />;
}
