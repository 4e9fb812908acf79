'use client';

import { useState } from 'react';
import { errorMessage, type ApiClient, type AuditFilters, type AuditKind } from '@/lib/api/api-client';

/** Downloads every matching record: fetched with the token, then saved through a Blob URL. */
export function ExportButtons({
  api,
  kind,
  filters,
}: {
  api: ApiClient;
  kind: AuditKind;
  filters: AuditFilters;
}) {
  const [busy, setBusy] = useState<string | undefined>();
  const [message, setMessage] = useState<string | undefined>();

  async function download(format: 'csv' | 'ndjson') {
    setBusy(format);
    setMessage(undefined);
    try {
      const { blob, filename } = await api.exportAudit(kind, filters, format);
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setMessage(`Saved ${filename}`);
    } catch (e) {
      setMessage(`Export failed: ${errorMessage(e)}`);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <div className="inline-form">
      <span className="muted small" role="status" data-testid="export-status">
        {message}
      </span>
      <button type="button" onClick={() => download('csv')} disabled={Boolean(busy)}>
        {busy === 'csv' ? 'Exporting…' : 'Export CSV'}
      </button>
      <button type="button" onClick={() => download('ndjson')} disabled={Boolean(busy)}>
        {busy === 'ndjson' ? 'Exporting…' : 'Export NDJSON'}
      </button>
    </div>
  );
}
