'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useEffect, type ReactNode } from 'react';
import { ErrorState } from '@/components/ui/error-state';
import { useSession } from './session-provider';
import { Skeleton } from '@/components/ui/skeleton';

/** Renders its children only when signed in; otherwise sends the browser to /sign-in (and back afterwards). */
export function RequireSession({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const router = useRouter();
  const pathname = usePathname();

  useEffect(() => {
    if (session.status !== 'signed-out') return;
    const back = pathname + window.location.search;
    router.replace(back === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(back)}`);
  }, [session.status, pathname, router]);

  if (session.status === 'ready') return <>{children}</>;
  if (session.status === 'error')
    return (
      <div className="panel">
        <ErrorState
          title="Could not check your sign-in"
          message={session.error.message}
          onRetry={session.retry}
        />
      </div>
    );
  return (
    <div className="panel">
      <Skeleton rows={6} label={session.status === 'signed-out' ? 'Redirecting to sign in' : 'Loading'} />
    </div>
  );
}
