import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { QueryProvider } from '../components/shell/query-provider';
import { SessionProvider } from '../components/shell/session-provider';
import { SiteHeader } from '../components/shell/site-header';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Nginx control plane', template: '%s · Nginx control plane' },
  description: 'Declare, watch and audit mycompany.com/v1 Nginx resources',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#151b23' },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Rendered per request, never prerendered at build time: each response carries its own CSP nonce (proxy.ts),
  // and a prerendered page's scripts would have none.
  await connection();
  return (
    <html lang="en">
      <body>
        <QueryProvider>
          <SessionProvider>
            <SiteHeader />
            <main id="content">{children}</main>
          </SessionProvider>
        </QueryProvider>
      </body>
    </html>
  );
}
