import type { LivePod } from '@ngx/nginx-api';
import { Age } from '@/components/ui/age';
import { Badge, type Tone } from '@/components/ui/badge';
import { TableWrap } from '@/components/ui/table-wrap';
import { groupSummary, type PodGroup } from '@/features/rollout/pod-groups';

const PHASE_TONES: Record<string, Tone> = {
  Running: 'success',
  Pending: 'warning',
  Succeeded: 'neutral',
  Failed: 'danger',
  Unknown: 'neutral',
};

const COLUMNS = ['Name', 'Phase', 'Ready', 'Node', 'Restarts', 'IP', 'Age', 'State', 'Why'];

function RevisionHead({ group }: { group: PodGroup }) {
  return (
    <tr className="revision-head">
      <th scope="rowgroup" colSpan={COLUMNS.length}>
        <span className="inline-form">
          {group.revision === null ? (
            <Badge tone="neutral">before revisions</Badge>
          ) : (
            <>
              <Badge tone={group.current ? 'info' : 'neutral'}>{group.current ? 'new' : 'old'}</Badge>
              <span className="mono" title={`Revision ${group.revision}`}>
                {group.revision}
              </span>
            </>
          )}
          <span className="muted small">{groupSummary(group)}</span>
        </span>
      </th>
    </tr>
  );
}

function PodRow({ pod, onWhy }: { pod: LivePod; onWhy: (pod: string) => void }) {
  return (
    <tr
      data-testid="pod-row"
      data-pod={pod.name}
      data-uid={pod.uid}
      data-phase={pod.phase}
      data-terminating={pod.terminating}
      data-revision={pod.revision ?? ''}
      className={pod.terminating ? 'terminating' : undefined}
    >
      <th scope="row" className="mono pod-name">
        {pod.name}
      </th>
      <td>
        <Badge tone={PHASE_TONES[pod.phase] ?? 'neutral'}>{pod.phase}</Badge>
      </td>
      <td>{pod.ready ? <Badge tone="success">Ready</Badge> : <Badge tone="neutral">Not ready</Badge>}</td>
      <td>{pod.node ?? <span className="muted">unscheduled</span>}</td>
      <td className="num">{pod.restarts}</td>
      <td className="mono">{pod.podIP ?? <span className="muted">—</span>}</td>
      <td>
        <Age since={pod.createdAt} />
      </td>
      <td>
        {pod.terminating ? <Badge tone="warning">Terminating</Badge> : <span className="muted">—</span>}
      </td>
      <td>
        <button
          type="button"
          className="link-button"
          onClick={() => onWhy(pod.name)}
          aria-label={`Why ${pod.name}?`}
          data-testid="pod-why"
        >
          why?
        </button>
      </td>
    </tr>
  );
}

/**
 * The live pods of one Nginx in one table, one row group per revision (update revision first). Rows are keyed by
 * uid, so a row updates in place as its pod changes, and moves group only if its revision does. Each row's "why?"
 * asks `onWhy` for the chain behind that pod.
 */
export function PodsTable({ groups, onWhy }: { groups: PodGroup[]; onWhy: (pod: string) => void }) {
  return (
    <TableWrap label="Pods">
      <table data-testid="pods-table">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className={column === 'Restarts' ? 'num' : undefined}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        {groups.map((group) => (
          <tbody
            key={group.revision ?? ''}
            data-testid="revision-group"
            data-revision={group.revision ?? ''}
            data-current={group.current}
          >
            <RevisionHead group={group} />
            {group.pods.map((pod) => (
              <PodRow key={pod.uid} pod={pod} onWhy={onWhy} />
            ))}
          </tbody>
        ))}
      </table>
    </TableWrap>
  );
}
