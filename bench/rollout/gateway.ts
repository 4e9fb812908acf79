import type { NginxCanaryStep } from '../../libs/nginx-api/src/index.js';
import type { RouteWeights, Timed } from '../../test/support/flagger.js';
import { quantile } from '../latency-stats.js';

// The Gateway API canary rows (issue 46): our canary through the user's HTTPRoute next to Flagger's through the one it
// generates, the same split steps on both sides, the same pause between them.

/** The canary's share of the route at each step (Flagger's stepWeights; ours' setWeight steps). */
export const GATEWAY_STEP_WEIGHTS = [20, 50] as const;

/**
 * The pause after each step on both sides: Flagger's analysis interval (it raises anything shorter to 10 s) and ours'
 * pause duration.
 */
export const GATEWAY_PAUSE_SECONDS = 10;

/** Ours, equivalent to Flagger's stepWeights then promotion: each weight, then a pause; the end of the steps promotes. */
export const ourGatewaySteps = (weights: readonly number[], pauseSeconds: number): NginxCanaryStep[] =>
  weights.flatMap((setWeight) => [{ setWeight }, { pause: { duration: `${pauseSeconds}s` } }]);

/** One canary as either side ran it: the route's weights from the trigger (the image change), and when it was done. */
export interface GatewayCanaryRun {
  weights: Timed<RouteWeights>[];
  doneMs: number;
}

export const weightText = (weights: RouteWeights) => `${weights.primary}/${weights.canary}`;

/** The weights a run's route went through, as `100/0 → 80/20 → …`. */
export const sequenceText = (run: GatewayCanaryRun) =>
  run.weights.map((w) => weightText(w.value)).join(' → ');

/** When the route first gave the canary `canary` (ms since the trigger); undefined when it never did. */
export const firstShownMs = (run: GatewayCanaryRun, canary: number): number | undefined =>
  run.weights.find((w) => w.value.canary === canary)?.atMs;

/**
 * The split steps a run went through: the canary's weights strictly between 0 and 100, in order. How each side
 * promotes is left out (ours routes 0/100 once the canary has every pod, then back to the promoted stable Service;
 * Flagger routes back to its promoted primary in one write).
 */
export const splitSteps = (run: GatewayCanaryRun): number[] =>
  run.weights.map((w) => w.value.canary).filter((canary) => canary > 0 && canary < 100);

export interface Spread {
  p50: number;
  max: number;
}

const spread = (values: number[]): Spread => ({
  p50: quantile(values, 0.5),
  max: values.length ? Math.max(...values) : NaN,
});

/** One side's figures over its runs, in seconds since each run's own trigger. */
export interface GatewaySideSummary {
  runs: number;
  /** By step weight: when the route first showed it. */
  toWeightSeconds: Record<number, Spread>;
  doneSeconds: Spread;
  /** Each distinct sequence of weights seen, with how many runs saw it. */
  sequences: { sequence: string; runs: number }[];
}

export function summarizeGatewaySide(runs: GatewayCanaryRun[], steps: readonly number[]): GatewaySideSummary {
  const seconds = (ms: (number | undefined)[]) =>
    ms.filter((n): n is number => n !== undefined).map((n) => n / 1000);
  const sequences = new Map<string, number>();
  for (const run of runs) sequences.set(sequenceText(run), (sequences.get(sequenceText(run)) ?? 0) + 1);
  return {
    runs: runs.length,
    toWeightSeconds: Object.fromEntries(
      steps.map((weight) => [weight, spread(seconds(runs.map((run) => firstShownMs(run, weight))))]),
    ),
    doneSeconds: spread(seconds(runs.map((run) => run.doneMs))),
    sequences: [...sequences].map(([sequence, count]) => ({ sequence, runs: count })),
  };
}

/**
 * Every run, of either side, whose split steps are not `steps`: one line each (empty when both sides went through
 * the same weights).
 */
export function stepMismatches(
  sides: Record<string, GatewayCanaryRun[]>,
  steps: readonly number[],
): string[] {
  const expected = steps.join(', ');
  return Object.entries(sides).flatMap(([side, runs]) =>
    runs.flatMap((run, i) => {
      const seen = splitSteps(run).join(', ');
      return seen === expected
        ? []
        : [
            `WEIGHTS MISMATCH: ${side}, canary ${i}: split steps [${seen}], expected [${expected}] (${sequenceText(run)})`,
          ];
    }),
  );
}

/**
 * `markdown` with its section under `heading` (a `## ` line, up to the next `## ` line or the end) replaced by
 * `section`, or with `section` put before `before` (a `## ` heading) when it has none, else appended.
 */
export function spliceSection(markdown: string, heading: string, section: string, before?: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  const body = section.replace(/\n+$/, '').split('\n');
  if (start >= 0) {
    const next = lines.findIndex((line, i) => i > start && line.startsWith('## '));
    return [...lines.slice(0, start), ...body, '', ...(next < 0 ? [] : lines.slice(next))].join('\n');
  }
  const at = before === undefined ? -1 : lines.indexOf(before);
  if (at < 0) return [...lines, ...(lines.at(-1) === '' ? [] : ['']), ...body, ''].join('\n');
  return [...lines.slice(0, at), ...body, '', ...lines.slice(at)].join('\n');
}

/** One side of the rows as the bench measured it. */
export interface GatewaySide {
  controller: string;
  clientLimits: { qps: number; burst: number };
  runs: GatewayCanaryRun[];
  /** One line for each canary that could not be measured. */
  failures: string[];
  summary: GatewaySideSummary;
  /** The controller process over the side's whole run: creating and settling its canaries, then rolling them. */
  cpuSeconds?: number;
  peakRssMb?: number;
  /** From the first object created until the last canary was done. */
  wallSeconds?: number;
  /** The whole machine's busy cores on average over the same time (other work on it included). */
  machineBusyCores?: number;
  error?: string;
}

const fixed = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);
const spreadText = (s: Spread | undefined) => (s ? `${fixed(s.p50)} / ${fixed(s.max)}` : '—');

/** The table "Gateway API canary: ours vs Flagger": one row a side. */
export function gatewayTable(sides: GatewaySide[], steps: readonly number[]): string {
  const stepHeads = steps.map((weight) => `route at ${100 - weight}/${weight} s (p50 / max)`);
  const rows = [
    `| controller | canaries | client qps / burst | ${stepHeads.join(' | ')} | done s (p50 / max) | weights seen (runs) | CPU s | peak RSS MiB | machine busy cores | not measured |`,
    `| --- | ---: | --- | ${steps.map(() => '---:').join(' | ')} | ---: | --- | ---: | ---: | ---: | --- |`,
  ];
  for (const side of sides) {
    const s = side.summary;
    rows.push(
      `| ${side.controller} | ${s.runs} | ${side.clientLimits.qps} / ${side.clientLimits.burst} | ` +
        `${steps.map((weight) => spreadText(s.toWeightSeconds[weight])).join(' | ')} | **${spreadText(s.doneSeconds)}** | ` +
        `${s.sequences.map((q) => `${q.sequence} (${q.runs})`).join('; ') || '—'} | ${fixed(side.cpuSeconds, 2)} | ` +
        `${fixed(side.peakRssMb, 0)} | ${fixed(side.machineBusyCores, 2)} | ${side.error ?? (side.failures.length ? `${side.failures.length} (listed below)` : 'none')} |`,
    );
  }
  return rows.join('\n');
}
