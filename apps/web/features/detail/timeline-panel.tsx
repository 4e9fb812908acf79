'use client';

import { TIMELINE_KINDS, timelineRows, type TimelineKind, type TimelineRow } from '@ngx/nginx-api';
import { useId, useMemo, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { Skeleton } from '@/components/ui/skeleton';
import type { ApiClient } from '@/lib/api/api-client';
import { useNginxTimeline } from '@/features/detail/use-detail-reads';
import { formatDateTime } from '@/lib/ui/format';

const KIND_LABELS: Record<TimelineKind, string> = {
  change: 'Changes',
  reconcile: 'Reconciles',
  event: 'Events',
  pod: 'Pods',
  condition: 'Conditions',
  'pod-write': 'Pod writes',
  gap: 'Gaps',
};

/**
 * An Nginx's causal timeline, live: its changes (any door), reconciles, Events, pod transitions, condition changes,
 * pod writes and the audit's known gaps in one order, newest first, read at a glance (timelineRows: like entries
 * and reconciles that changed nothing folded, bookkeeping deletes under the deletion they finish), each row naming
 * in words, and linking to, what caused it.
 * Refetched (debounced) whenever `revision` moves — the object's resourceVersion and its pods' — as the Events
 * panel is. Filters by kind and actor.
 */
export function TimelinePanel({
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
  const id = useId();
  const { data: items, error, retry } = useNginxTimeline(api, namespace, name, revision);
  const [kinds, setKinds] = useState<TimelineKind[]>([]);
  const [actor, setActor] = useState('');

  const rows = useMemo(() => timelineRows(items ?? [], { kinds, actor }), [items, kinds, actor]);
  /** Where each entry is shown: its row's anchor (a burst shows many entries). */
  const rowOf = useMemo(() => {
    const map = new Map<string, string>();
    for (const row of rows) for (const member of row.ids) map.set(member, row.id);
    return map;
  }, [rows]);

  const toggle = (kind: TimelineKind) =>
    setKinds((current) => (current.includes(kind) ? current.filter((k) => k !== kind) : [...current, kind]));

  if (error && !items)
    return <ErrorState title="Could not load the timeline" message={error} onRetry={retry} />;
  if (!items) return <Skeleton rows={4} label="Loading the timeline" />;
  return (
    <>
      <fieldset className="timeline-filters inline-form" data-testid="timeline-filters">
        <legend className="small muted">Show</legend>
        {TIMELINE_KINDS.map((kind) => (
          <label key={kind} className="small">
            <input type="checkbox" checked={kinds.includes(kind)} onChange={() => toggle(kind)} />{' '}
            {KIND_LABELS[kind]}
          </label>
        ))}
        <label htmlFor={`${id}-actor`} className="small">
          Actor
        </label>
        <input
          id={`${id}-actor`}
          value={actor}
          onChange={(e) => setActor(e.target.value)}
          placeholder="any"
          spellCheck={false}
          data-testid="timeline-actor"
        />
      </fieldset>
      {rows.length === 0 ? (
        <EmptyState title="Nothing in the timeline" testId="timeline-empty">
          Changes, reconciles, Events and pod transitions of this Nginx appear here as they happen.
        </EmptyState>
      ) : (
        <ol className="causal-timeline" data-testid="timeline" aria-label={`Timeline of ${name}`}>
          {rows.map((row) => (
            <TimelineLine key={row.id} row={row} rowOf={rowOf} />
          ))}
        </ol>
      )}
    </>
  );
}

function TimelineLine({ row, rowOf }: { row: TimelineRow; rowOf: ReadonlyMap<string, string> }) {
  return (
    <li id={anchor(row.id)} data-testid="timeline-row" data-kind={row.kind} data-ids={row.ids.join(' ')}>
      <time dateTime={row.at} className="mono small">
        {formatDateTime(row.at)}
      </time>{' '}
      <Badge tone={row.tone}>{row.kind}</Badge> <span className="wrap">{row.text}</span>
      {row.causes.length > 0 && (
        <span className="muted small" data-testid="timeline-causes">
          {' '}
          ← caused by{' '}
          {row.causes.map((cause, index) => (
            <span key={cause}>
              {index > 0 ? ', ' : ''}
              {rowOf.has(cause) ? (
                <a href={`#${anchor(rowOf.get(cause)!)}`} data-cause={cause}>
                  {row.causeTexts[index]}
                </a>
              ) : (
                <span data-cause={cause}>{row.causeTexts[index]}</span>
              )}
            </span>
          ))}
        </span>
      )}
    </li>
  );
}

/** The element id of a timeline row. */
function anchor(id: string): string {
  return `timeline-${id.replace('/', '-')}`;
}
