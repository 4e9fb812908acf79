import type { NginxCondition } from '@ngx/nginx-api';
import { formatDateTime } from '@/lib/ui/format';
import { Age } from '@/components/ui/age';
import { Badge, type Tone } from '@/components/ui/badge';
import { TableWrap } from '@/components/ui/table-wrap';

function tone(condition: NginxCondition): Tone {
  if (condition.status === 'Unknown') return 'neutral';
  const good =
    condition.type === 'ReplicaFailure' ? condition.status === 'False' : condition.status === 'True';
  if (condition.type === 'Progressing' && condition.status === 'True') return 'info';
  return good ? 'success' : condition.type === 'ReplicaFailure' ? 'danger' : 'warning';
}

/** status.conditions as a table: type, status (toned: good, in progress, bad), reason, message, last transition. */
export function ConditionsTable({ conditions }: { conditions: NginxCondition[] }) {
  if (conditions.length === 0)
    return <p className="muted panel-body">The controller has not reported any conditions yet.</p>;
  return (
    <TableWrap label="Conditions">
      <table data-testid="conditions-table">
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Reason</th>
            <th scope="col">Message</th>
            <th scope="col">Last transition</th>
          </tr>
        </thead>
        <tbody>
          {conditions.map((c) => (
            <tr key={c.type} data-testid={`condition-${c.type}`}>
              <th scope="row">{c.type}</th>
              <td>
                <Badge tone={tone(c)}>{c.status}</Badge>
              </td>
              <td>{c.reason}</td>
              <td className="wrap">{c.message}</td>
              <td title={formatDateTime(c.lastTransitionTime)}>
                <Age since={c.lastTransitionTime} /> ago
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
