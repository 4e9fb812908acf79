import { useState, type ReactNode } from 'react';

/**
 * A collapsible part of the create form (`<details>`): closed until opened, and held open while any of its fields
 * shows an error, so an error is never hidden.
 */
export function FormSection({
  title,
  summary,
  hasError,
  children,
}: {
  title: string;
  /** A short line after the title saying what the section sets. */
  summary: string;
  hasError: boolean;
  children: ReactNode;
}) {
  const [opened, setOpened] = useState(false);
  return (
    <details
      className="create-section"
      open={opened || hasError}
      onToggle={(e) => setOpened(e.currentTarget.open)}
      data-testid="create-section"
      data-section={title.toLowerCase()}
    >
      <summary>
        <span className="create-section-title">{title}</span>
        <span className="muted small">{summary}</span>
        {hasError && <span className="create-section-error">Has errors</span>}
      </summary>
      <div className="create-section-body">{children}</div>
    </details>
  );
}
