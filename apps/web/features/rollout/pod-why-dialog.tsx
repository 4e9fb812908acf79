'use client';

import { entryText } from '@ngx/nginx-api';
import { useId } from 'react';
import { Badge } from '@/components/ui/badge';
import { ModalDialog } from '@/components/ui/modal-dialog';
import type { ApiClient } from '@/lib/api/api-client';
import { usePodWhy } from '@/features/rollout/use-pod-why';
import { formatDateTime } from '@/lib/ui/format';

/**
 * "Why?" for one pod, in a modal <dialog> (Escape closes): the chain from the pod's creation (or its deletion)
 * back to the change or the person at its root, with who that was.
 */
export function PodWhyDialog({
  api,
  namespace,
  name,
  pod,
  onClose,
}: {
  api: ApiClient;
  namespace: string;
  name: string;
  /** The pod asked about; undefined: closed. */
  pod: string | undefined;
  onClose: () => void;
}) {
  const id = useId();
  const { why, error } = usePodWhy(api, namespace, name, pod);

  return (
    <ModalDialog
      open={Boolean(pod)}
      aria-labelledby={`${id}-title`}
      onClose={onClose}
      data-testid="pod-why-dialog"
    >
      <div className="dialog-body">
        <h2 id={`${id}-title`}>Why {pod}?</h2>
        {error && (
          <p className="alert" role="alert">
            {error}
          </p>
        )}
        {!why && !error && <p className="muted">Following the audit trail…</p>}
        {why && (
          <>
            <p data-testid="pod-why-actor">
              {why.actor ? (
                <>
                  Caused by <strong>{why.actor}</strong> <Badge tone="neutral">via {why.door}</Badge>
                </>
              ) : (
                'The audit trail does not name who caused it.'
              )}
            </p>
            <ol className="causal-timeline" data-testid="pod-why-chain">
              {why.chain.map((item) => (
                <li key={item.id} data-testid="pod-why-step" data-kind={item.kind}>
                  <time dateTime={item.at} className="mono small">
                    {formatDateTime(item.at)}
                  </time>{' '}
                  <Badge tone="neutral">{item.kind}</Badge> <span className="wrap">{entryText(item)}</span>
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
