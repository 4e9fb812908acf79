import { useMemo } from 'react';
import { stringify } from 'yaml';
import { LineDiffView } from '@/components/ui/line-diff-view';
import { lineDiff } from '@/lib/nginx/manifest-diff';

const asYaml = (spec: unknown) => (spec === null || spec === undefined ? '' : stringify(spec));

/** specBefore → specAfter of a change, as a line diff of their YAML. */
export function SpecDiff({ before, after }: { before: unknown; after: unknown }) {
  const lines = useMemo(() => lineDiff(asYaml(before), asYaml(after)), [before, after]);

  if (before == null && after == null)
    return <p className="muted small">No spec recorded for this change.</p>;
  return (
    <figure style={{ margin: 0 }}>
      <figcaption className="small muted" style={{ marginBottom: '0.35rem' }}>
        spec {before == null ? '(none before)' : 'before'} → {after == null ? '(none after)' : 'after'}
      </figcaption>
      <LineDiffView lines={lines} label="Spec diff" testId="spec-diff" />
    </figure>
  );
}
