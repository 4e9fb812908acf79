'use client';

import { useEffect, useState } from 'react';
import { errorMessage, StatusError, type ApiClient } from '@/lib/api/api-client';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';

/** Why a write failed, in words; a 403 says the server refused it (the role or namespace may have changed). */
function failure(error: unknown): string {
  if (error instanceof StatusError && error.code === 403) return `Refused by the server: ${error.message}`;
  return errorMessage(error);
}

/**
 * "Pause rollout" while spec.paused is not set, "Resume rollout" while it is: a merge patch of spec.paused. The
 * label follows the server's answer, then the live spec; a failure (a 403 too) is shown next to it.
 */
export function PauseButton({
  api,
  namespace,
  name,
  paused,
}: {
  api: ApiClient;
  namespace: string;
  name: string;
  paused: boolean;
}) {
  /** What the server answered the last patch with, until the live spec moves (so a second click is not a no-op). */
  const [sent, setSent] = useState<boolean | undefined>();
  useEffect(() => setSent(undefined), [paused]);
  const shown = sent ?? paused;
  const patch = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (next: boolean) => api.patchNginx(namespace, name, { spec: { paused: next } }),
      onSuccess: (updated) => setSent(updated.spec.paused === true),
    },
  );
  const error = patch.error ? failure(patch.error) : undefined;

  return (
    <>
      <button
        type="button"
        onClick={() => patch.mutate(!shown)}
        disabled={patch.isPending}
        data-testid="pause-toggle"
      >
        {shown ? 'Resume rollout' : 'Pause rollout'}
      </button>
      {error && (
        <p className="field-error pause-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
