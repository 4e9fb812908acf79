/** One line of the chart: ready pods (y) at seconds since the phase started (x). */
export interface Series {
  label: string;
  color: string;
  points: [seconds: number, ready: number][];
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** What the axes say; by default the convergence chart's (pods ready since the objects were created). */
export interface AxisLabels {
  x?: string;
  y?: string;
}

/** A small self-contained SVG line chart of pods ready over time, one line per controller. */
export function readyChart(title: string, series: Series[], target: number, axes: AxisLabels = {}): string {
  const { x: xLabel = 'seconds since the objects were created', y: yLabel = 'pods ready' } = axes;
  const width = 720;
  const height = 360;
  const pad = { left: 56, right: 16, top: 36, bottom: 44 };
  const maxX = Math.max(1, ...series.flatMap((s) => s.points.map(([x]) => x)));
  const x = (v: number) => pad.left + (v / maxX) * (width - pad.left - pad.right);
  const y = (v: number) => height - pad.bottom - (v / target) * (height - pad.top - pad.bottom);
  const ticks = Array.from({ length: 6 }, (_, i) => (maxX / 5) * i);
  const lines = series
    .map(
      (s) =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.points
          .map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`)
          .join(' ')}"/>`,
    )
    .join('\n  ');
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${pad.left + 10}" y="${pad.top + 8 + i * 18}" width="12" height="3" fill="${s.color}"/>` +
        `<text x="${pad.left + 28}" y="${pad.top + 13 + i * 18}" font-size="12">${escape(s.label)}</text>`,
    )
    .join('\n  ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
  <rect width="100%" height="100%" fill="white"/>
  <text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escape(title)}</text>
  <line x1="${pad.left}" y1="${y(0)}" x2="${width - pad.right}" y2="${y(0)}" stroke="#888"/>
  <line x1="${pad.left}" y1="${y(0)}" x2="${pad.left}" y2="${y(target)}" stroke="#888"/>
  <line x1="${pad.left}" y1="${y(target)}" x2="${width - pad.right}" y2="${y(target)}" stroke="#ccc" stroke-dasharray="4 4"/>
  <text x="${pad.left - 6}" y="${y(target) + 4}" text-anchor="end" font-size="11">${target}</text>
  <text x="${pad.left - 6}" y="${y(0) + 4}" text-anchor="end" font-size="11">0</text>
  ${ticks.map((t) => `<text x="${x(t)}" y="${height - pad.bottom + 16}" text-anchor="middle" font-size="11">${t.toFixed(1)} s</text>`).join('\n  ')}
  <text x="${width / 2}" y="${height - 8}" text-anchor="middle" font-size="12">${escape(xLabel)}</text>
  <text x="14" y="${height / 2}" transform="rotate(-90 14 ${height / 2})" text-anchor="middle" font-size="12">${escape(yLabel)}</text>
  ${lines}
  ${legend}
</svg>
`;
}
