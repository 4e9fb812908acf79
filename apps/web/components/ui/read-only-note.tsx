/**
 * Stands where a write control would be for someone who may not write: says why (role, namespace), so a refused
 * action is never a silently missing button. `reason` comes from `writeRefusal`.
 */
export function ReadOnlyNote({ reason }: { reason: string }) {
  return (
    <p className="muted small read-only-note" data-testid="read-only-note" role="note">
      {reason}
    </p>
  );
}
