import { diffLines } from 'diff';
import { useMemo } from 'react';
import { stringify } from 'yaml';

const asYaml = (spec: unknown) => (spec === null || spec === undefined ? '' : stringify(spec));

/** specBefore → specAfter of a change, as a line diff of their YAML. */
export function SpecDiff({ before, after }: { before: unknown; after: unknown }) {
  const lines = useMemo(() => {
    const parts = diffLines(asYaml(before), asYaml(after));
    return parts.flatMap((part, p) =>
      part.value
        .replace(/\n$/, '')
        .split('\n')
        .map((text, i) => ({
          key: `${p}-${i}`,
          text,
          kind: part.added ? 'added' : part.removed ? 'removed' : 'same',
        })),
    );
  }, [before, after]);

  if (before == null && after == null)
    return <p className="muted small">No spec recorded for this change.</p>;
  return (
    <figure style={{ margin: 0 }}>
      <figcaption className="small muted" style={{ marginBottom: '0.35rem' }}>
        spec {before == null ? '(none before)' : 'before'} → {after == null ? '(none after)' : 'after'}
      </figcaption>
      <pre className="diff" data-testid="spec-diff" tabIndex={0} aria-label="Spec diff">
        {lines.map((line) => (
          <span key={line.key} className={`diff-line ${line.kind}`}>
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
    </figure>
  );
}
