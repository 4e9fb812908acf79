'use client';

import { useState } from 'react';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';

/** What a canary's or a blue-green's buttons ask of the server. */
export type RolloutAction = 'promote' | 'promote-fully' | 'abort';

/**
 * The promote and abort requests of a canary or a blue-green (the same endpoints for both), with whether the
 * abort is being asked about: `abortDialog` holds the ConfirmDialog props that follow from it.
 */
export function usePromoteAbort(api: ApiClient, namespace: string, name: string) {
  const [confirmingAbort, setConfirmingAbort] = useState(false);
  const act = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (action: RolloutAction) =>
        action === 'abort'
          ? api.abort(namespace, name)
          : api.promote(namespace, name, action === 'promote-fully'),
      onSuccess: (_updated, action) => {
        if (action === 'abort') setConfirmingAbort(false);
      },
    },
  );
  const busy = act.isPending;
  const error = errorText(act.error);
  return {
    run: (action: Exclude<RolloutAction, 'abort'>) => act.mutate(action),
    askAbort: () => setConfirmingAbort(true),
    busy,
    /** Why the last request failed, while no abort is being asked about (the dialog shows it then). */
    error: confirmingAbort ? undefined : error,
    abortDialog: {
      open: confirmingAbort,
      error,
      busy,
      busyLabel: 'Aborting…',
      tone: 'danger' as const,
      onCancel: () => setConfirmingAbort(false),
      onConfirm: () => act.mutate('abort'),
    },
  };
}

/** A failed promote or abort, in words. */
export function ActionError({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="field-error" role="alert">
      {error}
    </p>
  );
}

/** The analysis run an automatic abort names. */
export function AbortedBy({ run, testId }: { run: string | undefined; testId: string }) {
  if (!run) return null;
  return (
    <p className="small" data-testid={testId}>
      Aborted by {run.endsWith('-gate') ? 'gate' : 'analysis run'} <code>{run}</code>.
    </p>
  );
}

/** The Abort button: it asks first (the dialog `abortDialog` describes). */
export function AbortButton({
  actions,
  disabled,
  testId,
}: {
  actions: ReturnType<typeof usePromoteAbort>;
  disabled: boolean;
  testId: string;
}) {
  return (
    <button
      type="button"
      className="danger"
      disabled={actions.busy || disabled}
      onClick={actions.askAbort}
      data-testid={testId}
    >
      Abort
    </button>
  );
}

/** The props of a strategy's part of the rollout panel: its view, and where and whether to promote or abort. */
export interface StrategyPanelProps<View> {
  view: View;
  api: ApiClient;
  namespace: string;
  name: string;
  writable: boolean;
}
