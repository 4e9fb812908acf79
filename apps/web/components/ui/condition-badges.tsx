import {
  CONDITION_AVAILABLE,
  CONDITION_PROGRESSING,
  CONDITION_REPLICA_FAILURE,
  type Nginx,
} from '@ngx/nginx-api';
import { condition } from '@/lib/nginx/nginx-view';
import { Badge } from '@/components/ui/badge';

/** Available / Progressing / ReplicaFailure from status.conditions, as small badges (the reason on hover). */
export function ConditionBadges({ nginx }: { nginx: Nginx }) {
  const available = condition(nginx, CONDITION_AVAILABLE);
  const progressing = condition(nginx, CONDITION_PROGRESSING);
  const failure = condition(nginx, CONDITION_REPLICA_FAILURE);
  const hint = (c: typeof available) => (c ? `${c.type}=${c.status}: ${c.reason} — ${c.message}` : undefined);
  if (!available && !progressing && !failure) return <span className="muted small">No status yet</span>;
  return (
    <span className="badges">
      {available?.status === 'True' && (
        <Badge tone="success" title={hint(available)}>
          Available
        </Badge>
      )}
      {available && available.status !== 'True' && (
        <Badge tone="warning" title={hint(available)}>
          Unavailable
        </Badge>
      )}
      {progressing?.status === 'True' && (
        <Badge tone="info" title={hint(progressing)}>
          Progressing
        </Badge>
      )}
      {failure?.status === 'True' && (
        <Badge tone="danger" title={hint(failure)}>
          ReplicaFailure
        </Badge>
      )}
    </span>
  );
}
