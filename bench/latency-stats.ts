/** The value below which a share `q` (0–1) of `values` falls (nearest rank); NaN when there are none. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** Milliseconds for a results table: whole numbers, a dash when there is no figure. */
export const wholeMs = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '—');
