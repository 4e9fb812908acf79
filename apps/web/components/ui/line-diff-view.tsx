import type { DiffLine } from '@/lib/nginx/manifest-diff';

/** A line diff (from `lineDiff`), each change marked by sign, colour and, for screen readers, in words. */
export function LineDiffView({
  lines,
  label,
  testId,
}: {
  lines: readonly DiffLine[];
  /** The accessible name of the diff. */
  label: string;
  testId?: string;
}) {
  return (
    <pre className="diff line-diff" data-testid={testId} tabIndex={0} aria-label={label}>
      {lines.map((line, index) => (
        <span key={index} className={`diff-line ${line.kind}`}>
          <span className="diff-sign" aria-hidden="true">
            {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}
          </span>
          {line.kind !== 'same' && (
            <span className="visually-hidden">{line.kind === 'added' ? 'added: ' : 'removed: '}</span>
          )}
          {line.text}
        </span>
      ))}
    </pre>
  );
}
