'use client';

import { DEFAULT_PORT, type Nginx } from '@ngx/nginx-api';
import { useState } from 'react';
import { ReadOnlyNote } from '@/components/ui/read-only-note';
import { ConfigEditForm } from './config-edit-form';

/**
 * spec.config of an Nginx: shown read-only (or "default server" when there is none); for someone who may write,
 * "Edit config" opens the editor in place, which checks as it is typed and saves conditionally. `refusal`
 * (from `writeRefusal`) is shown to someone who may not.
 */
export function ConfigPanel({
  nginx,
  writable,
  refusal,
}: {
  nginx: Nginx;
  writable: boolean;
  refusal?: string | null;
}) {
  const [editing, setEditing] = useState(false);
  const config = nginx.spec?.config ?? '';

  return (
    <section className="panel" aria-labelledby="config-title" data-testid="config-panel">
      <div className="panel-head">
        <h2 id="config-title">Config</h2>
        <span className="muted small">/etc/nginx/conf.d/default.conf</span>
        <div className="actions">
          {writable && !editing && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit config
            </button>
          )}
        </div>
      </div>
      <div className="panel-body">
        {!writable && refusal && <ReadOnlyNote reason={refusal} />}
        {editing && writable ? (
          <ConfigEditForm nginx={nginx} onDone={() => setEditing(false)} />
        ) : config ? (
          <pre className="code" data-testid="config-text" tabIndex={0} aria-label="Current config">
            {config}
          </pre>
        ) : (
          <p className="muted" data-testid="config-default">
            No config: nginx serves its default server (the welcome page) on port{' '}
            {nginx.spec?.port ?? DEFAULT_PORT}.
          </p>
        )}
      </div>
    </section>
  );
}
