import type { NginxAnalysisRun, NginxGateRun } from '@ngx/nginx-api';
import { Badge, type Tone } from '@/components/ui/badge';
import { TableWrap } from '@/components/ui/table-wrap';
import { formatDateTime } from '@/lib/ui/format';

const RUN_TONES: Record<NginxAnalysisRun['phase'], Tone> = {
  Running: 'info',
  Successful: 'success',
  Failed: 'danger',
  Inconclusive: 'warning',
  Error: 'warning',
};

/** A webhook gate's verdict: passed or failed, the HTTP status it answered, and why it failed. */
export function GateRunLine({ run }: { run: NginxGateRun }) {
  return (
    <p className="small canary-run" data-testid={`gate-run-${run.name}`} data-phase={run.phase}>
      Gate <code>{run.name}</code>{' '}
      <Badge tone={run.phase === 'Passed' ? 'success' : 'danger'}>{run.phase}</Badge>
      {run.code !== undefined && <span className="muted"> HTTP {run.code}</span>}
      {run.message && <span> {run.message}</span>}
      <span className="muted"> · {formatDateTime(run.at)}</span>
    </p>
  );
}

/** One analysis run: its verdict, and each measurement (time, value, verdict, why, the query as sent). */
export function AnalysisRunTable({ run }: { run: NginxAnalysisRun }) {
  return (
    <div className="canary-run" data-testid={`analysis-run-${run.name}`}>
      <p className="small">
        Run <code>{run.name}</code> <Badge tone={RUN_TONES[run.phase]}>{run.phase}</Badge>
      </p>
      {run.measurements.length > 0 && (
        <TableWrap label={`Measurements of ${run.name}`}>
          <table className="small">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Value</th>
                <th scope="col">Verdict</th>
                <th scope="col">Query</th>
              </tr>
            </thead>
            <tbody>
              {run.measurements.map((m) => (
                <tr key={m.at} data-testid="analysis-measurement">
                  <td>{formatDateTime(m.at)}</td>
                  <td>{m.value === undefined ? '—' : m.value}</td>
                  <td>
                    <Badge tone={RUN_TONES[m.phase]}>{m.phase}</Badge>
                    {m.message && <span className="muted"> {m.message}</span>}
                  </td>
                  <td>
                    <code className="canary-query">{m.query}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}
