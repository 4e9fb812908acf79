'use client';

import { MAX_REPLICAS, MIN_REPLICAS, nginxSpecSchema, validateAgainst } from '@ngx/nginx-api';
import { useEffect, useState, type FormEvent } from 'react';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { shortMessage } from '@/features/create/form-errors';

const replicasSchema = nginxSpecSchema.properties!.replicas!;

/**
 * The replica count: a − / + stepper around a number input; Apply sends a merge patch to the scale subresource.
 * The draft follows the live spec until the user edits it.
 */
export function ScaleControl({
  api,
  namespace,
  name,
  replicas,
}: {
  api: ApiClient;
  namespace: string;
  name: string;
  replicas: number;
}) {
  const [draft, setDraft] = useState(String(replicas));
  const [dirty, setDirty] = useState(false);
  const [done, setDone] = useState<string | undefined>();
  /** The value last applied, until the live spec shows it (the draft is kept meanwhile, so it does not flicker). */
  const [sent, setSent] = useState<number | undefined>();
  const scale = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (to: number) => api.scaleNginx(namespace, name, to),
      onSuccess: (_answer, to) => {
        setSent(to);
        setDone(`Scaled to ${to}`);
      },
    },
  );
  const busy = scale.isPending;
  const error = errorText(scale.error);

  useEffect(() => {
    if (!dirty) setDraft(String(replicas));
  }, [replicas, dirty]);
  useEffect(() => {
    if (sent !== undefined && replicas === sent) {
      setSent(undefined);
      setDirty(false);
    }
  }, [replicas, sent]);

  const value = draft.trim() === '' ? undefined : Number(draft);
  const problem =
    value === undefined
      ? 'Enter a number of replicas'
      : validateAgainst(replicasSchema, value, 'spec.replicas').map((e) =>
          shortMessage(e.field, e.message),
        )[0];
  const changed = value !== replicas;

  const set = (next: string) => {
    setDraft(next);
    setDirty(true);
    setSent(undefined);
    // A scale still under way keeps its state: its outcome is shown when it ends.
    if (!scale.isPending) scale.reset();
    setDone(undefined);
  };
  const step = (delta: number) => {
    const base = Number.isInteger(value) ? (value as number) : replicas;
    set(String(Math.min(MAX_REPLICAS, Math.max(MIN_REPLICAS, base + delta))));
  };

  function apply(event: FormEvent) {
    event.preventDefault();
    if (problem || !changed || value === undefined) return;
    scale.mutate(value);
  }

  return (
    <form onSubmit={apply} noValidate data-testid="scale-form">
      <div className="inline-form">
        <div className="stepper">
          <button
            type="button"
            className="icon"
            aria-label="Decrease replicas"
            onClick={() => step(-1)}
            disabled={busy || (value ?? replicas) <= MIN_REPLICAS}
          >
            −
          </button>
          <input
            type="number"
            inputMode="numeric"
            aria-label="Desired replicas"
            min={MIN_REPLICAS}
            max={MAX_REPLICAS}
            step={1}
            value={draft}
            onChange={(e) => set(e.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'scale-error' : undefined}
            data-testid="scale-input"
          />
          <button
            type="button"
            className="icon"
            aria-label="Increase replicas"
            onClick={() => step(1)}
            disabled={busy || (value ?? replicas) >= MAX_REPLICAS}
          >
            +
          </button>
        </div>
        <button type="submit" className="primary" disabled={busy || !changed || Boolean(problem)}>
          {busy ? 'Scaling…' : 'Scale'}
        </button>
        {dirty && changed && !problem && (
          <span className="muted small">
            {replicas} → {value}
          </span>
        )}
        <span className="muted small" role="status">
          {done}
        </span>
      </div>
      {(problem || error) && (
        <p className="field-error" id="scale-error" role={error ? 'alert' : undefined}>
          {error ?? problem}
        </p>
      )}
    </form>
  );
}
