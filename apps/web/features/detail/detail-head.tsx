import type { Nginx } from '@ngx/nginx-api';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { ConditionBadges } from '@/components/ui/condition-badges';
import { auditHref } from '@/features/detail/detail-states';
import { ReadOnlyNote } from '@/components/ui/read-only-note';
import { createdAt } from '@/lib/nginx/nginx-view';

/**
 * The heading of one Nginx: name, namespace, condition badges, age, and the page's actions. `actions` are the
 * write controls (rendered only when `refusal` is null); otherwise the refusal is shown once, here, instead.
 */
export function DetailHead({
  nginx,
  refusal,
  actions,
}: {
  nginx: Nginx;
  /** From `writeRefusal`: why this identity may not write here, or null when it may. */
  refusal: string | null;
  actions: ReactNode;
}) {
  const { namespace, name } = nginx.metadata as { namespace: string; name: string };
  const deleting = Boolean(nginx.metadata.deletionTimestamp);
  return (
    <div className="page-head">
      <div>
        <h1 data-testid="nginx-title">{name}</h1>
        <div className="subtitle inline-form">
          <Badge tone="neutral">namespace: {namespace}</Badge>
          <ConditionBadges nginx={nginx} />
          {deleting && <Badge tone="warning">Deleting</Badge>}
          <span className="muted small">
            created <Age since={createdAt(nginx)} /> ago
          </span>
        </div>
        {refusal !== null && <ReadOnlyNote reason={refusal} />}
      </div>
      <div className="actions">
        <Link className="button" href={auditHref(namespace, name)} data-testid="audit-link">
          Audit history
        </Link>
        {refusal === null && actions}
      </div>
    </div>
  );
}
