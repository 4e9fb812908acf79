'use client';

import { DEFAULT_IMAGE, nginxSpecSchema, validateAgainst } from '@ngx/nginx-api';
import { useEffect, useState, type FormEvent } from 'react';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { shortMessage } from '@/features/create/form-errors';

const imageSchema = nginxSpecSchema.properties!.image!;

/** spec.image, edited in place and saved with a merge patch of the object. */
export function ImageEditor({
  api,
  namespace,
  name,
  image,
}: {
  api: ApiClient;
  namespace: string;
  name: string;
  image: string | undefined;
}) {
  const current = image ?? '';
  const [draft, setDraft] = useState(current);
  const [dirty, setDirty] = useState(false);
  const [sent, setSent] = useState<string | undefined>();
  const save = useNginxMutation(
    { namespace, name },
    {
      // An empty image removes the field, so the default applies again.
      mutationFn: (next: string) => api.patchNginx(namespace, name, { spec: { image: next || null } }),
      onSuccess: (_updated, next) => setSent(next),
    },
  );
  const busy = save.isPending;
  const error = errorText(save.error);

  useEffect(() => {
    if (!dirty) setDraft(current);
  }, [current, dirty]);
  useEffect(() => {
    if (sent !== undefined && (current === sent || (sent === '' && current === DEFAULT_IMAGE))) {
      setSent(undefined);
      setDirty(false);
    }
  }, [current, sent]);

  const problem = draft.trim()
    ? validateAgainst(imageSchema, draft.trim(), 'spec.image').map((e) => shortMessage(e.field, e.message))[0]
    : undefined;
  const changed = draft.trim() !== current;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (problem || !changed) return;
    save.mutate(draft.trim());
  }

  return (
    <form onSubmit={submit} noValidate data-testid="image-form">
      <div className="inline-form">
        <input
          aria-label="Image"
          value={draft}
          placeholder={DEFAULT_IMAGE}
          spellCheck={false}
          autoComplete="off"
          className="mono"
          style={{ flex: '1 1 14rem', minWidth: 0 }}
          onChange={(e) => {
            setDraft(e.target.value);
            setDirty(true);
            setSent(undefined);
            // A save still under way keeps its state: its outcome is shown when it ends.
            if (!save.isPending) save.reset();
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem || error ? 'image-error' : undefined}
          data-testid="image-input"
        />
        <button type="submit" disabled={busy || !changed || Boolean(problem)}>
          {busy ? 'Saving…' : 'Save image'}
        </button>
        {dirty && changed && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setDraft(current);
              setDirty(false);
            }}
          >
            Reset
          </button>
        )}
      </div>
      {(problem || error) && (
        <p className="field-error" id="image-error" role={error ? 'alert' : undefined}>
          {error ?? problem}
        </p>
      )}
    </form>
  );
}
