'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { Badge } from '@/components/ui/badge';
import { ConnectionIndicator } from './connection-indicator';
import { useSession } from './session-provider';

const ROLE_TONES = { viewer: 'neutral', editor: 'info', admin: 'warning' } as const;

export function SiteHeader() {
  const { session, signOut } = useSession();
  const pathname = usePathname();
  const current = (href: string) =>
    (href === '/' ? pathname === '/' || pathname.startsWith('/nginxes') : pathname.startsWith(href))
      ? 'page'
      : undefined;
  return (
    <header className="site-header">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <Link href="/" className="brand">
        <span className="brand-mark" aria-hidden="true">
          N
        </span>
        Nginx control plane
      </Link>
      {session.status === 'ready' && (
        <>
          <nav aria-label="Main" className="site-nav">
            <Link href="/" aria-current={current('/')}>
              Nginxes
            </Link>
            <Link href="/audit" aria-current={current('/audit')}>
              Audit
            </Link>
          </nav>
          <div className="header-end">
            <ConnectionIndicator live={session.live} />
            <span className="identity" data-testid="identity">
              <span className="identity-name">
                Signed in as <strong>{session.identity.name}</strong>
              </span>
              <Badge tone={ROLE_TONES[session.identity.role]}>{session.identity.role}</Badge>
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        </>
      )}
    </header>
  );
}
