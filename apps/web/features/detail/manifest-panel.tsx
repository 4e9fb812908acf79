'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useMemo, useState } from 'react';
import { stringify } from 'yaml';
import { manifestOf } from '@/lib/nginx/nginx-view';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

/** The object as YAML (read-only, without managedFields), with a Copy button. */
export function ManifestPanel({ nginx }: { nginx: Nginx }) {
  const yaml = useMemo(() => stringify(manifestOf(nginx)), [nginx]);
  const [copied, setCopied] = useState<string | undefined>();

  const copy = () =>
    copyText(yaml).then(
      () => setCopied('Copied'),
      () => setCopied('Copy failed: select the text instead'),
    );

  return (
    <section className="panel" aria-labelledby="manifest-title">
      <div className="panel-head">
        <h2 id="manifest-title">Manifest</h2>
        <span className="muted small">YAML, without managedFields</span>
        <div className="actions">
          <span className="muted small" role="status">
            {copied}
          </span>
          <button type="button" onClick={copy} onBlur={() => setCopied(undefined)}>
            Copy
          </button>
        </div>
      </div>
      <div className="panel-body">
        <pre className="code" data-testid="manifest-yaml" tabIndex={0} aria-label="Manifest YAML">
          {yaml}
        </pre>
      </div>
    </section>
  );
}
