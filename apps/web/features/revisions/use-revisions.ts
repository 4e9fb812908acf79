'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import {
  errorMessage,
  StatusError,
  type ApiClient,
  type RevisionItem,
  type RevisionList,
} from '@/lib/api/api-client';
import { sameIntent, writeOnVersion } from '@/lib/api/conditional-write';
import { queryKeys } from '@/lib/query/query-keys';
import { errorText, readPhase, type ReadPhase } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { useRefetchOn } from '@/lib/query/use-refetch-on';

/** The revision history of one Nginx as `useRevisions` holds it. */
export interface RevisionsState {
  /** The state of the latest fetch. */
  phase: ReadPhase;
  /** The last list received for this Nginx: kept while a refetch runs and after one fails. */
  list: RevisionList | undefined;
  /** Why the latest fetch failed (phase `error`). */
  error: string | undefined;
  /** Fetches the list again now. */
  reload: () => void;
}

/**
 * The revisions of `namespace/name` (`GET …/revisions`), fetched on mount and again whenever `refreshKey` changes
 * (pass `${generation}|${status.updateRevision}|${status.currentRevision}`) or `reload` is called. Each fetch
 * aborts the one before (and unmounting aborts the last); the list is kept per Nginx, so another one's is never
 * shown.
 */
export function useRevisions(
  api: ApiClient,
  namespace: string,
  name: string,
  refreshKey: string,
): RevisionsState {
  const queryKey = queryKeys.revisions(namespace, name);
  const query = useQuery({ queryKey, queryFn: ({ signal }) => api.revisions(namespace, name, signal) });
  useRefetchOn(queryKey, refreshKey);
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  return { phase: readPhase(query), list: query.data, error: errorText(query.error), reload };
}

/** A rollback the user is confirming: the revision, and the list state the confirmation was computed from. */
export interface RollbackTarget {
  revision: RevisionItem;
  /** What the rollback changes (`rollbackSummary` of the current template and the revision's). */
  summary: string[];
  /** The Nginx as the summary was computed from it: its resourceVersion is the rollback's precondition. */
  base: Nginx;
}

/** The state of a rollback flow as `useRollback` holds it, and its actions. */
export interface RollbackState {
  /** The revision being confirmed (the dialog is open), else undefined. */
  target: RollbackTarget | undefined;
  busy: boolean;
  /** Why the last attempt failed (a 403's sentence among them), shown in the dialog. */
  error: string | undefined;
  /** The server's 409 message: the Nginx changed since the list was read; the dialog is closed. */
  conflict: string | undefined;
  /** A sentence about the last rollback that succeeded. */
  done: string | undefined;
  open: (target: RollbackTarget) => void;
  cancel: () => void;
  confirm: () => Promise<void>;
  /** Forgets the conflict and reloads the list (`reload`). */
  reloadAfterConflict: () => void;
}

/**
 * The rollback of `namespace/name` to a revision, after a confirmation: `confirm` posts it conditioned on the
 * target's resourceVersion. Success closes the confirmation and refreshes the Nginx's reads (the list among them);
 * a 409 closes it and keeps the server's message as `conflict` (nothing was written); any other failure stays in
 * the confirmation as `error`.
 */
export function useRollback(
  api: ApiClient,
  namespace: string,
  name: string,
  reload: () => void,
): RollbackState {
  const [target, setTarget] = useState<RollbackTarget | undefined>();
  const [conflict, setConflict] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const rollback = useNginxMutation(
    { namespace, name },
    {
      // The controller's status writes moving the resourceVersion are no conflict; anyone else's change to the
      // Nginx, or a history renumbered since, is.
      mutationFn: (to: RollbackTarget) =>
        writeOnVersion(
          to.base.metadata.resourceVersion ?? '',
          (version) => api.rollback(namespace, name, to.revision.revision, version),
          async () => {
            const [now, history] = await Promise.all([
              api.getNginx(namespace, name),
              api.revisions(namespace, name),
            ]);
            const unchanged =
              sameIntent(to.base, now) &&
              history.items.some(
                (item) => item.revision === to.revision.revision && item.hash === to.revision.hash,
              );
            return { version: now.metadata.resourceVersion ?? '', unchanged };
          },
        ),
      onSuccess: (_updated, to) => {
        setTarget(undefined);
        setDone(`Rolled back to revision ${to.revision.revision} (${to.revision.template.image}).`);
      },
      onError: (e) => {
        if (e instanceof StatusError && e.code === 409) {
          setTarget(undefined);
          setConflict(e.message);
        }
      },
    },
  );
  const { mutateAsync, reset, isPending: busy } = rollback;
  // A 409 is shown as `conflict` instead.
  const error =
    rollback.error && !(rollback.error instanceof StatusError && rollback.error.code === 409)
      ? errorMessage(rollback.error)
      : undefined;

  const open = useCallback(
    (next: RollbackTarget) => {
      setTarget(next);
      reset();
      setConflict(undefined);
      setDone(undefined);
    },
    [reset],
  );
  const cancel = useCallback(() => {
    setTarget(undefined);
    // A rollback still under way keeps its state: the dialog is closed, its outcome is shown when it ends.
    if (!busy) reset();
  }, [busy, reset]);

  const confirm = useCallback(async () => {
    if (target) await mutateAsync(target).catch(() => undefined);
  }, [mutateAsync, target]);

  const reloadAfterConflict = useCallback(() => {
    setConflict(undefined);
    reload();
  }, [reload]);

  return { target, busy, error, conflict, done, open, cancel, confirm, reloadAfterConflict };
}
