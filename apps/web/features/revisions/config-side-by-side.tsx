import { DEFAULT_SERVER, type ConfigDiff, type NumberedLine } from '@/features/revisions/revision-diff';

const SIGN = { removed: '−', added: '+' } as const;

/** One side of a line pair: number, sign (+/−, and a hidden word for screen readers), text. */
function Side({
  line,
  side,
  change,
}: {
  line: NumberedLine | undefined;
  side: 'left' | 'right';
  change: 'removed' | 'added' | undefined;
}) {
  const cls = change ?? '';
  return (
    <>
      <td className={`n ${cls}`}>{line?.n}</td>
      <td className={`sign ${cls}`} aria-hidden="true">
        {line && change ? SIGN[change] : ''}
      </td>
      <td className={`text ${side} ${cls}`}>
        {line && change && <span className="visually-hidden">{change}: </span>}
        {line?.text}
      </td>
    </>
  );
}

/**
 * Two configs' lines side by side (before on the left, after on the right), removed lines marked − and added ones
 * + besides their background; a side without spec.config says "default server".
 */
export function ConfigSideBySide({
  diff,
  fromLabel,
  toLabel,
}: {
  diff: ConfigDiff;
  fromLabel: string;
  toLabel: string;
}) {
  const heading = (label: string, isDefault: boolean) => `${label}${isDefault ? ` — ${DEFAULT_SERVER}` : ''}`;
  if (diff.beforeDefault && diff.afterDefault)
    return <p className="muted small">Both revisions run the {DEFAULT_SERVER} (no spec.config).</p>;
  if (diff.lines.every((line) => line.kind === 'same'))
    return <p className="muted small">The config is the same in both revisions.</p>;
  return (
    <div className="table-wrap" role="region" aria-label="Config diff" tabIndex={0}>
      <table className="rev-sbs" data-testid="revision-config-diff">
        <colgroup>
          <col className="n" />
          <col className="sign" />
          <col />
          <col className="n" />
          <col className="sign" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col" colSpan={3}>
              {heading(fromLabel, diff.beforeDefault)}
            </th>
            <th scope="col" colSpan={3}>
              {heading(toLabel, diff.afterDefault)}
            </th>
          </tr>
        </thead>
        <tbody>
          {diff.lines.map((pair, i) => {
            const changed = pair.kind === 'changed';
            return (
              <tr key={i} data-kind={pair.kind}>
                <Side
                  line={pair.left}
                  side="left"
                  change={changed || pair.kind === 'removed' ? 'removed' : undefined}
                />
                <Side
                  line={pair.right}
                  side="right"
                  change={changed || pair.kind === 'added' ? 'added' : undefined}
                />
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
