import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: 'Nginx control plane',
  description: 'Declare, watch and audit mycompany.com/v1 Nginx resources',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header>
          <h1>Nginx control plane</h1>
          <span className="muted">nginxes.mycompany.com</span>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
