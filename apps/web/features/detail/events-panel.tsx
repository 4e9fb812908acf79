'use client';

import { useState } from 'react';
import type { ApiClient } from '@/lib/api/api-client';
import { useNginxEvents } from '@/features/detail/use-detail-reads';
import { formatDateTime } from '@/lib/ui/format';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { Skeleton } from '@/components/ui/skeleton';
import { TableWrap } from '@/components/ui/table-wrap';

/** Events shown before "Show all". */
const FIRST_EVENTS = 10;

/**
 * The Kubernetes Events about one Nginx (SuccessfulCreate, FailedCreate, …). Fetched on open, and again (debounced)
 * whenever `revision` changes — the object's resourceVersion and its pods' — since events follow those changes.
 */
export function EventsPanel({
  api,
  namespace,
  name,
  revision,
}: {
  api: ApiClient;
  namespace: string;
  name: string;
  revision: string;
}) {
  const { data: events, error, retry } = useNginxEvents(api, namespace, name, revision);
  const [all, setAll] = useState(false);

  if (error && !events)
    return <ErrorState title="Could not load the events" message={error} onRetry={retry} />;
  if (!events) return <Skeleton rows={3} label="Loading events" />;
  if (events.length === 0)
    return (
      <EmptyState title="No events" testId="events-empty">
        The controller records an event when it creates or deletes a pod, or cannot.
      </EmptyState>
    );
  return (
    <TableWrap label="Events">
      {error && (
        <p className="alert" role="alert">
          Could not refresh the events: {error}{' '}
          <button type="button" onClick={retry}>
            Retry
          </button>
        </p>
      )}
      <table data-testid="events-table">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Reason</th>
            <th scope="col">Message</th>
            <th scope="col" className="num">
              Count
            </th>
            <th scope="col">Last seen</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {(all ? events : events.slice(0, FIRST_EVENTS)).map((e, i) => (
            <tr key={`${e.reason}-${e.firstTime}-${i}`} data-testid="event-row">
              <td>
                <Badge tone={e.type === 'Warning' ? 'warning' : 'neutral'}>{e.type}</Badge>
              </td>
              <td>{e.reason}</td>
              <td className="wrap">{e.message}</td>
              <td className="num">{e.count}</td>
              <td title={formatDateTime(e.lastTime)}>
                {e.lastTime ? (
                  <>
                    <Age since={e.lastTime} /> ago
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td className="muted">{e.source || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {events.length > FIRST_EVENTS && (
        <div className="load-more">
          <button type="button" onClick={() => setAll((v) => !v)} aria-expanded={all}>
            {all ? `Show the latest ${FIRST_EVENTS}` : `Show all ${events.length} events`}
          </button>
        </div>
      )}
    </TableWrap>
  );
}
