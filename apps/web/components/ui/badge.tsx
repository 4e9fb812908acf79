import type { ReactNode } from 'react';

export type Tone = 'success' | 'danger' | 'warning' | 'info' | 'neutral';

export function Badge({ tone, children, title }: { tone: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge ${tone}`} title={title}>
      {children}
    </span>
  );
}
