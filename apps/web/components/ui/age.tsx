'use client';

import { useNow } from '@/lib/ui/use-now';
import { formatAge, formatDateTime } from '@/lib/ui/format';

/** Time since `since` (kubectl's style), ticking every second; the exact time on hover. */
export function Age({ since }: { since: string | null | undefined }) {
  const now = useNow();
  if (!since) return <span className="muted">—</span>;
  const at = Date.parse(since);
  if (Number.isNaN(at) || now === 0) return <time dateTime={since}>{formatDateTime(since)}</time>;
  return (
    <time dateTime={since} title={formatDateTime(since)}>
      {formatAge((now - at) / 1000)}
    </time>
  );
}
