import Link from 'next/link';
import { detailHref } from '@/lib/nginx/nginx-view';
import type { ChangeItem } from '@/lib/api/api-client';
import { changePerson, kubeSaw } from '@/features/audit/change-person-view';
import { SpecDiff } from '@/components/ui/spec-diff';

/**
 * A change's expanded row: the refusal's message, the diff of the spec, and the request's particulars: who made
 * it (name, address, groups, how they signed in) and what kube-apiserver saw of it.
 */
export function ChangeDetail({ item, ok }: { item: ChangeItem; ok: boolean }) {
  const person = changePerson(item);
  return (
    <>
      {item.message && !ok && (
        <div className="alert" style={{ whiteSpace: 'pre-wrap' }}>
          <strong>Refused</strong>
          {item.message}
        </div>
      )}
      <div className="grid-2">
        <SpecDiff before={item.specBefore} after={item.specAfter} />
        <dl className="props small">
          <dt>Timeline</dt>
          <dd>
            <Link
              href={`${detailHref(item.namespace, item.name)}#timeline`}
              prefetch={false}
              data-testid="change-timeline-link"
            >
              What followed, in {item.name}&apos;s timeline
            </Link>
          </dd>
          <dt>Door</dt>
          <dd>
            {item.door}
            <span className="muted"> (recorded by {item.sources.join(', ')})</span>
          </dd>
          <dt>Who</dt>
          <dd data-testid="change-person">
            <span className="mono">{person.name ?? 'unknown'}</span>
            {person.email && <> &lt;{person.email}&gt;</>}
            {person.signedIn && <span className="muted"> ({person.signedIn})</span>}
          </dd>
          <dt>Groups</dt>
          <dd className="mono" data-testid="change-person-groups">
            {person.groups.length > 0 ? person.groups.join(', ') : '—'}
          </dd>
          <dt>Seen by kube-apiserver as</dt>
          <dd className="mono" data-testid="change-kube-saw">
            {kubeSaw(item) ?? '—'}
          </dd>
          <dt>Field manager</dt>
          <dd className="mono">{item.fieldManager ?? '—'}</dd>
          <dt>Audit ID</dt>
          <dd className="mono">{item.auditId ?? '—'}</dd>
          <dt>Patch type</dt>
          <dd className="mono">{item.patchType ?? '—'}</dd>
          <dt>UID</dt>
          <dd className="mono">{item.uid ?? '—'}</dd>
          <dt>resourceVersion</dt>
          <dd className="mono">{item.resourceVersion ?? '—'}</dd>
          <dt>User agent</dt>
          <dd className="mono">{item.userAgent ?? '—'}</dd>
        </dl>
      </div>
    </>
  );
}
