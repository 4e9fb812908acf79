import { formatClock } from '@/lib/ui/format';
import type { PodTransition } from '@/lib/live/use-live-nginx';
import { Badge } from '@/components/ui/badge';

/** Recent pod transitions seen on this page, newest first: "12:01:03 web-x7k2p Pending → Running". */
export function PodTimeline({ transitions }: { transitions: PodTransition[] }) {
  if (transitions.length === 0)
    return <p className="muted small">No pod has changed since this page opened.</p>;
  return (
    <ol className="timeline" data-testid="pod-timeline" aria-label="Recent pod transitions" tabIndex={0}>
      {[...transitions].reverse().map((t) => (
        <li key={t.id} data-testid="pod-transition">
          <time dateTime={new Date(t.at).toISOString()}>{formatClock(new Date(t.at))}</time>
          <span className="mono">{t.pod}</span>
          <Badge tone={t.tone}>{t.change}</Badge>
        </li>
      ))}
    </ol>
  );
}
