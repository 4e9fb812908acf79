import Link from 'next/link';
import type { ReactNode } from 'react';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { ReadOnlyNote } from '@/components/ui/read-only-note';
import { Skeleton } from '@/components/ui/skeleton';
import type { SubscriptionRefusal } from '@/lib/live/live-client';

const listHref = (namespace: string) => `/?namespace=${encodeURIComponent(namespace)}`;

/** Link to the audit history of one Nginx. */
export const auditHref = (namespace: string, name: string) =>
  `/audit?namespace=${encodeURIComponent(namespace)}&name=${encodeURIComponent(name)}`;

/** Nginxes / namespace / name. */
export function Breadcrumbs({ namespace, name }: { namespace: string; name: string }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        <li>
          <Link href="/">Nginxes</Link>
        </li>
        <li>
          <Link href={listHref(namespace)}>{namespace}</Link>
        </li>
        <li aria-current="page">{name}</li>
      </ol>
    </nav>
  );
}

/** The page around a state that is not the object itself: breadcrumbs, the name as heading, one panel. */
function StateFrame({ namespace, name, children }: { namespace: string; name: string; children: ReactNode }) {
  return (
    <>
      <Breadcrumbs namespace={namespace} name={name} />
      <h1 className="detail-state-title">{name}</h1>
      <div className="panel">{children}</div>
    </>
  );
}

/** While the first snapshot of the Nginx is on its way. */
export function DetailLoading({ namespace, name }: { namespace: string; name: string }) {
  return (
    <StateFrame namespace={namespace} name={name}>
      <Skeleton rows={8} label={`Loading ${name}`} />
    </StateFrame>
  );
}

/**
 * The subscription was refused or failed; Retry subscribes again. `refusal` (from `writeRefusal`), when given, is
 * shown too: a token limited to other namespaces learns why here, where no write control could even appear.
 */
export function DetailError({
  namespace,
  name,
  error,
  refusal,
  onRetry,
}: {
  namespace: string;
  name: string;
  error: SubscriptionRefusal | undefined;
  refusal: string | null;
  onRetry: () => void;
}) {
  return (
    <StateFrame namespace={namespace} name={name}>
      {refusal !== null && (
        <div className="panel-body">
          <ReadOnlyNote reason={refusal} />
        </div>
      )}
      <ErrorState
        title={`Could not watch ${name}`}
        message={error ? `${error.message} (${error.code} ${error.reason})` : 'The subscription failed.'}
        onRetry={onRetry}
      />
    </StateFrame>
  );
}

/** No such Nginx (or it was just deleted); the page keeps watching and shows it when it is created again. */
export function DetailNotFound({ namespace, name }: { namespace: string; name: string }) {
  return (
    <StateFrame namespace={namespace} name={name}>
      <EmptyState
        title={`No Nginx ${name} in ${namespace}`}
        testId="nginx-not-found"
        action={
          <div className="inline-form detail-state-actions">
            <Link className="button primary" href={listHref(namespace)}>
              Back to the list
            </Link>
            <Link className="button" href={auditHref(namespace, name)}>
              Audit history
            </Link>
          </div>
        }
      >
        It does not exist, or it was just deleted. This page shows it as soon as it is created again.
      </EmptyState>
    </StateFrame>
  );
}
