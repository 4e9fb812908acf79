'use client';

import { DEFAULT_IMAGE, nginxSpecSchema, validateAgainst } from '@ngx/nginx-api';
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage, type ApiClient } from '@/lib/api/api-client';
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const [sent, setSent] = useState<string | undefined>();

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

  async function save(event: FormEvent) {
    event.preventDefault();
    if (problem || !changed) return;
    setBusy(true);
    setError(undefined);
    try {
      // An empty image removes the field, so the default applies again.
      await api.patchNginx(namespace, name, { spec: { image: draft.trim() || null } });
      setSent(draft.trim());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={save} noValidate data-testid="image-form">
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
            setError(undefined);
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
