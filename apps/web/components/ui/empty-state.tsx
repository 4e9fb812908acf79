import type { ReactNode } from 'react';

export function EmptyState({
  title,
  children,
  action,
  testId = 'empty-state',
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="state" data-testid={testId}>
      <div className="state-icon" aria-hidden="true">
        ◌
      </div>
      <h3>{title}</h3>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}
