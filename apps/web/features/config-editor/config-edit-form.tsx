'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useState, type FormEvent } from 'react';
import { useReadySession } from '@/components/shell/session-provider';
import { errorMessage, StatusError } from '@/lib/api/api-client';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { useConfigCheck } from '@/features/config-editor/config-check';
import { configProblemsOfCauses, type ConfigProblem } from '@/features/config-editor/config-problems';
import { sameIntent, writeOnVersion } from '@/lib/api/conditional-write';
import { ConfigConflict } from './config-conflict';
import { NginxConfigEditor } from './nginx-config-editor';

/** The config and resourceVersion the draft was started from: a save is conditioned on that version. */
interface Base {
  config: string;
  resourceVersion: string | undefined;
  nginx: Nginx;
}

const baseOf = (nginx: Nginx): Base => ({
  config: nginx.spec?.config ?? '',
  resourceVersion: nginx.metadata.resourceVersion,
  nginx,
});

/**
 * Edits spec.config: problems from the local and server checks on their lines, "Save config" only for a changed
 * text the server found nothing wrong with, saved as a merge patch conditioned on the version read. A 409 keeps
 * the draft and shows what changed meanwhile; a 403 or other refusal is shown as it came.
 */
export function ConfigEditForm({ nginx, onDone }: { nginx: Nginx; onDone: () => void }) {
  const { api } = useReadySession();
  const namespace = nginx.metadata.namespace!;
  const name = nginx.metadata.name!;
  const [base, setBase] = useState(() => baseOf(nginx));
  const [draft, setDraft] = useState(base.config);
  const [error, setError] = useState<string | undefined>();
  const [refused, setRefused] = useState<{ text: string; problems: ConfigProblem[] } | undefined>();
  const [latest, setLatest] = useState<Nginx | undefined>();
  const check = useConfigCheck(api, namespace, name, draft, draft !== base.config);
  const problems = refused?.text === draft ? refused.problems : check.problems;
  const write = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (config: string) =>
        writeOnVersion(
          base.resourceVersion ?? '',
          (resourceVersion) =>
            api.patchNginx(namespace, name, {
              metadata: { resourceVersion },
              spec: { config: config || null },
            }),
          async () => {
            const now = await api.getNginx(namespace, name);
            return { version: now.metadata.resourceVersion ?? '', unchanged: sameIntent(base.nginx, now) };
          },
        ),
      onSuccess: onDone,
      // Awaited while the save stays pending: a 409 reads the object now before the form is enabled again.
      onError: async (e, config) => {
        const fromServer = e instanceof StatusError ? configProblemsOfCauses(e.causes) : [];
        if (e instanceof StatusError && e.code === 409)
          setLatest(await api.getNginx(namespace, name).catch(() => nginx));
        else if (fromServer.length > 0) setRefused({ text: config, problems: fromServer });
        else if (e instanceof StatusError && e.code === 403) setError(`Not allowed: ${e.message}`);
        else setError(errorMessage(e));
      },
    },
  );
  const saving = write.isPending;
  const blocked = saving || check.checking || problems.length > 0 || draft === base.config;

  function save(event: FormEvent) {
    event.preventDefault();
    if (blocked) return;
    setError(undefined);
    write.mutate(draft);
  }

  const rebase = (next: Nginx, keepDraft: boolean) => {
    const nextBase = baseOf(next);
    setBase(nextBase);
    if (!keepDraft) setDraft(nextBase.config);
    setLatest(undefined);
  };

  return (
    <form onSubmit={save} noValidate data-testid="config-form">
      <NginxConfigEditor value={draft} onChange={setDraft} problems={problems} />
      <p className="muted small" role="status">
        {check.checking ? 'Checking with the server…' : ''}
        {!check.checking && check.error ? `Could not check with the server: ${check.error}` : ''}
      </p>
      {latest && (
        <ConfigConflict
          before={base.config}
          now={latest.spec?.config ?? ''}
          onReload={() => rebase(latest, false)}
          onKeep={() => rebase(latest, true)}
        />
      )}
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={blocked}>
          {saving ? 'Saving…' : 'Save config'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
