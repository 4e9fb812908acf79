'use client';

import Link from 'next/link';
import { Fragment } from 'react';
import type { ReconcileAction, ReconcileItem } from '../lib/api-client';
import { formatDateTime, formatDuration } from '../lib/format';
import { detailHref } from '../lib/nginx-view';
import { useExpandedRows } from '../lib/use-expanded-rows';
import { Badge, type Tone } from './badge';
import { TableWrap } from './table-wrap';

const RESULT_TONES: Record<string, Tone> = { success: 'success', error: 'danger', requeued: 'warning' };
const VERBS: Record<string, [string, string]> = {
  create: ['created', 'pod'],
  delete: ['deleted', 'pod'],
  adopt: ['adopted', 'pod'],
  release: ['released', 'pod'],
};

/** "created 2 pods · status" */
export function summariseActions(actions: ReconcileAction[]): string {
  if (actions.length === 0) return 'no actions';
  const counts = new Map<string, number>();
  for (const a of actions) counts.set(a.kind, (counts.get(a.kind) ?? 0) + 1);
  return [...counts]
    .map(([kind, n]) => {
      const verb = VERBS[kind];
      if (kind === 'status') return 'status updated';
      return verb ? `${verb[0]} ${n} ${verb[1]}${n === 1 ? '' : 's'}` : `${kind} ×${n}`;
    })
    .join(' · ');
}

function describeAction(action: ReconcileAction): string {
  if (action.kind === 'status') return 'wrote status';
  const verb = VERBS[action.kind]?.[0] ?? action.kind;
  return `${verb} pod ${action.pod ?? '?'}${action.reason ? ` (${action.reason})` : ''}`;
}

/** The reconcile timeline; a row expands to its error and the full action list. */
export function ReconcileTable({ items }: { items: ReconcileItem[] }) {
  const { isOpen, toggle } = useExpandedRows();

  return (
    <TableWrap label="Reconciles">
      <table data-testid="reconcile-table">
        <thead>
          <tr>
            <th scope="col" style={{ width: '2.5rem' }}>
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">Started</th>
            <th scope="col">Nginx</th>
            <th scope="col">Trigger</th>
            <th scope="col">Actions</th>
            <th scope="col">Result</th>
            <th scope="col" className="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const expanded = isOpen(item.id);
            const actions = item.actions;
            return (
              <Fragment key={item.id}>
                <tr
                  className={expanded ? 'expanded' : undefined}
                  data-testid="reconcile-row"
                  data-key={`${item.namespace}/${item.name}`}
                  data-result={item.result}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    toggle(item.id);
                  }}
                  style={{ cursor: 'pointer' }}
                >
                  <td>
                    <button
                      type="button"
                      className="expander"
                      aria-expanded={expanded}
                      aria-controls={`reconcile-${item.id}`}
                      aria-label={`Details of the reconcile of ${item.namespace}/${item.name} at ${formatDateTime(item.startedAt)}`}
                      onClick={() => toggle(item.id)}
                    >
                      <span className="chevron" aria-hidden="true">
                        ▸
                      </span>
                    </button>
                  </td>
                  <td className="mono small">
                    <time dateTime={item.startedAt}>{formatDateTime(item.startedAt)}</time>
                  </td>
                  <td>
                    <Link href={detailHref(item.namespace, item.name)} prefetch={false}>
                      {item.namespace}/{item.name}
                    </Link>
                  </td>
                  <td>
                    <code>{item.trigger}</code>
                  </td>
                  <td data-testid="reconcile-actions">{summariseActions(actions)}</td>
                  <td>
                    <Badge tone={RESULT_TONES[item.result] ?? 'neutral'}>{item.result}</Badge>
                  </td>
                  <td className="num">{formatDuration(item.durationMs)}</td>
                </tr>
                {expanded && (
                  <tr className="detail-row" id={`reconcile-${item.id}`}>
                    <td colSpan={7}>
                      {item.error && (
                        <div className="alert" style={{ whiteSpace: 'pre-wrap' }}>
                          <strong>Error</strong>
                          {item.error}
                        </div>
                      )}
                      <div className="grid-2">
                        <div>
                          <h3 className="small muted" style={{ marginBottom: '0.35rem' }}>
                            Actions ({actions.length})
                          </h3>
                          {actions.length ? (
                            <ol style={{ margin: 0, paddingLeft: '1.25rem' }}>
                              {actions.map((a, i) => (
                                <li key={i}>{describeAction(a)}</li>
                              ))}
                            </ol>
                          ) : (
                            <p className="muted small">None.</p>
                          )}
                        </div>
                        <dl className="props small">
                          <dt>Desired / active / ready</dt>
                          <dd>
                            {item.desiredReplicas ?? '—'} / {item.activeReplicas ?? '—'} /{' '}
                            {item.readyReplicas ?? '—'}
                          </dd>
                          <dt>Attempt</dt>
                          <dd>{item.attempt}</dd>
                          <dt>Generation</dt>
                          <dd>{item.generation ?? '—'}</dd>
                          <dt>resourceVersion</dt>
                          <dd className="mono">{item.resourceVersion ?? '—'}</dd>
                          <dt>Finished</dt>
                          <dd className="mono">{formatDateTime(item.finishedAt)}</dd>
                          <dt>Instance</dt>
                          <dd className="mono">{item.instanceId}</dd>
                        </dl>
                      </div>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}
