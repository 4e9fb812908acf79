/** One metric family of a Prometheus text exposition, as the comparisons read it. */
export interface MetricFamily {
  type: string;
  /** Label names its samples carry (`le` and `quantile` left out), sorted. */
  labels: string[];
  /** A histogram's `le` bounds (without +Inf), ascending. */
  buckets: number[];
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text format (version 0.0.4) into families by name; samples of `_bucket`/`_sum`/`_count` join theirs. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      families.set(type[1]!, { type: type[2]!, labels: [], buckets: [], samples: [] });
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample || line.startsWith('#')) continue;
    const [, name, labelText = '', value] = sample;
    const family =
      families.get(name!) ??
      families.get(name!.replace(/_(bucket|sum|count)$/, '')) ??
      families.get(name!.replace(/_total$/, ''));
    if (!family) continue;
    const labels = Object.fromEntries([...labelText.matchAll(LABEL)].map((m) => [m[1]!, m[2]!]));
    family.samples.push({ name: name!, labels, value: Number(value) });
    for (const label of Object.keys(labels))
      if (label !== 'le' && label !== 'quantile' && !family.labels.includes(label)) family.labels.push(label);
    if (name!.endsWith('_bucket') && labels.le !== '+Inf' && labels.le !== undefined) {
      const le = Number(labels.le);
      if (!family.buckets.includes(le)) family.buckets.push(le);
    }
  }
  for (const family of families.values()) {
    family.labels.sort();
    family.buckets.sort((a, b) => a - b);
  }
  return families;
}
