/** `ready/desired` with a small bar (the bar is decoration; the numbers say it). */
export function ReplicaProgress({ ready, desired }: { ready: number; desired: number }) {
  const ratio = desired > 0 ? Math.min(1, ready / desired) : ready > 0 ? 1 : 0;
  return (
    <span className="replicas" title={`${ready} of ${desired} pods ready`}>
      <span className="count">
        {ready}/{desired}
      </span>
      <span className="bar" aria-hidden="true" data-partial={desired > 0 && ready < desired}>
        <span style={{ width: `${desired === 0 ? 0 : ratio * 100}%` }} />
      </span>
    </span>
  );
}
