import type { LivePod } from '@ngx/nginx-api';
import { Age } from './age';
import { Badge, type Tone } from './badge';
import { TableWrap } from './table-wrap';

const PHASE_TONES: Record<string, Tone> = {
  Running: 'success',
  Pending: 'warning',
  Succeeded: 'neutral',
  Failed: 'danger',
  Unknown: 'neutral',
};

/** The live pods of one Nginx; rows are keyed by uid, so a row updates in place as its pod changes. */
export function PodsTable({ pods }: { pods: LivePod[] }) {
  return (
    <TableWrap label="Pods">
      <table data-testid="pods-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Phase</th>
            <th scope="col">Ready</th>
            <th scope="col">Node</th>
            <th scope="col" className="num">
              Restarts
            </th>
            <th scope="col">IP</th>
            <th scope="col">Age</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {pods.map((pod) => (
            <tr
              key={pod.uid}
              data-testid="pod-row"
              data-pod={pod.name}
              data-uid={pod.uid}
              data-phase={pod.phase}
              data-terminating={pod.terminating}
              className={pod.terminating ? 'terminating' : undefined}
            >
              <th scope="row" className="mono" style={{ fontWeight: 500 }}>
                {pod.name}
              </th>
              <td>
                <Badge tone={PHASE_TONES[pod.phase] ?? 'neutral'}>{pod.phase}</Badge>
              </td>
              <td>
                {pod.ready ? <Badge tone="success">Ready</Badge> : <Badge tone="neutral">Not ready</Badge>}
              </td>
              <td>{pod.node ?? <span className="muted">unscheduled</span>}</td>
              <td className="num">{pod.restarts}</td>
              <td className="mono">{pod.podIP ?? <span className="muted">—</span>}</td>
              <td>
                <Age since={pod.createdAt} />
              </td>
              <td>
                {pod.terminating ? (
                  <Badge tone="warning">Terminating</Badge>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
