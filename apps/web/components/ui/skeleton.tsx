/** Placeholder rows while something loads (announced once to screen readers). */
export function Skeleton({ rows = 5, label = 'Loading' }: { rows?: number; label?: string }) {
  return (
    <div className="skeleton-rows" role="status" aria-live="polite" data-testid="skeleton">
      <span className="visually-hidden">{label}…</span>
      {Array.from({ length: rows }, (_, i) => (
        <span key={i} className="skeleton" aria-hidden="true" style={{ width: `${92 - ((i * 17) % 35)}%` }} />
      ))}
    </div>
  );
}
