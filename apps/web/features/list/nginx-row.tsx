import type { Nginx } from '@ngx/nginx-api';
import Link from 'next/link';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { ConditionBadges } from '@/components/ui/condition-badges';
import { ReplicaProgress } from '@/components/ui/replica-progress';
import { createdAt, desiredOf, detailHref, imageOf, readyOf } from '@/lib/nginx/nginx-view';
import { isMidRollout, rolloutViewOf } from '@/features/rollout/rollout-view';

/** The height every row is drawn at (the virtualiser relies on it). */
export const ROW_HEIGHT = 41;

/**
 * One Nginx of the list: name (a link to its page), namespace, ready/desired, up-to-date/desired with a
 * "Rolling out" marker (and `data-rollout="true"`) while a rollout is under way, conditions, image and age.
 */
export function NginxRow({ nginx, index }: { nginx: Nginx; index: number }) {
  const { namespace, name } = nginx.metadata as { namespace: string; name: string };
  const rollout = rolloutViewOf(nginx);
  const rolling = isMidRollout(rollout);
  return (
    <tr
      aria-rowindex={index + 2}
      data-testid="nginx-row"
      data-name={name}
      data-namespace={namespace}
      data-rollout={rolling}
      style={{ height: ROW_HEIGHT }}
    >
      <td>
        <Link href={detailHref(namespace, name)} className="row-link ellipsis" prefetch={false}>
          {name}
        </Link>
      </td>
      <td>
        <span className="ellipsis" title={namespace}>
          {namespace}
        </span>
      </td>
      <td data-testid="nginx-ready">
        <ReplicaProgress ready={readyOf(nginx)} desired={desiredOf(nginx)} />
      </td>
      <td data-testid="nginx-up-to-date">
        <span
          className="up-to-date"
          title={`${rollout.updated} of ${rollout.desired} pods run the current spec`}
        >
          <span className="count">
            {rollout.updated}/{rollout.desired}
          </span>
          {rolling && (
            <span data-testid="rolling-out" data-state={rollout.state}>
              <Badge
                tone={rollout.state === 'paused' ? 'warning' : 'info'}
                title={`${rollout.state === 'paused' ? 'Paused. ' : ''}${rollout.message ?? ''}`}
              >
                Rolling out
              </Badge>
            </span>
          )}
        </span>
      </td>
      <td>
        <ConditionBadges nginx={nginx} />
      </td>
      <td>
        <span className="ellipsis mono" title={imageOf(nginx)}>
          {imageOf(nginx)}
        </span>
      </td>
      <td>
        <Age since={createdAt(nginx)} />
      </td>
    </tr>
  );
}
