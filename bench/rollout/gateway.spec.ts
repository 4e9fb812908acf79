import { describe, expect, it } from 'vitest';
import {
  firstShownMs,
  gatewayTable,
  ourGatewaySteps,
  sequenceText,
  spliceSection,
  splitSteps,
  stepMismatches,
  summarizeGatewaySide,
  type GatewayCanaryRun,
  type GatewaySide,
} from './gateway.js';

const runOf = (doneMs: number, ...steps: [number, number][]): GatewayCanaryRun => ({
  doneMs,
  weights: steps.map(([atMs, canary]) => ({ atMs, value: { primary: 100 - canary, canary } })),
});

// Ours routes 0/100 before going back to the promoted stable Service; Flagger goes back in one write.
const ours = runOf(25_000, [0, 0], [400, 20], [10_600, 50], [21_000, 100], [22_000, 0]);
const flagger = runOf(60_000, [0, 0], [20_000, 20], [30_000, 50], [50_000, 0]);

describe('ourGatewaySteps', () => {
  it('gives each weight a pause of its own, as Flagger gives each of its stepWeights an interval', () => {
    expect(ourGatewaySteps([20, 50], 10)).toEqual([
      { setWeight: 20 },
      { pause: { duration: '10s' } },
      { setWeight: 50 },
      { pause: { duration: '10s' } },
    ]);
  });
});

describe('a run read back', () => {
  it('names its weights in order', () => {
    expect(sequenceText(ours)).toBe('100/0 → 80/20 → 50/50 → 0/100 → 100/0');
    expect(sequenceText(flagger)).toBe('100/0 → 80/20 → 50/50 → 100/0');
  });

  it('finds when the route first gave the canary a weight, and nothing for one it never gave', () => {
    expect(firstShownMs(ours, 50)).toBe(10_600);
    expect(firstShownMs(flagger, 100)).toBeUndefined();
  });

  it('keeps the split steps, not how each side promotes', () => {
    expect(splitSteps(ours)).toEqual([20, 50]);
    expect(splitSteps(flagger)).toEqual([20, 50]);
  });
});

describe('summarizeGatewaySide', () => {
  it('gives the median and the slowest in seconds, and each distinct sequence with its runs', () => {
    const slower = runOf(27_000, [0, 0], [800, 20], [11_000, 50], [22_000, 100], [23_000, 0]);
    const summary = summarizeGatewaySide([ours, slower, ours], [20, 50]);
    expect(summary.runs).toBe(3);
    expect(summary.toWeightSeconds[20]).toEqual({ p50: 0.4, max: 0.8 });
    expect(summary.doneSeconds).toEqual({ p50: 25, max: 27 });
    expect(summary.sequences).toEqual([{ sequence: '100/0 → 80/20 → 50/50 → 0/100 → 100/0', runs: 3 }]);
  });

  it('has no figure for a weight no run showed', () => {
    const summary = summarizeGatewaySide([flagger], [20, 30]);
    expect(summary.toWeightSeconds[30]!.p50).toBeNaN();
  });
});

describe('stepMismatches', () => {
  it('is empty when every run of both sides went through the steps', () => {
    expect(stepMismatches({ ours: [ours], Flagger: [flagger, flagger] }, [20, 50])).toEqual([]);
  });

  it('names each run that skipped or added a step', () => {
    const skipped = runOf(1, [0, 0], [5, 50], [9, 0]);
    expect(stepMismatches({ ours: [ours], Flagger: [flagger, skipped] }, [20, 50])).toEqual([
      'WEIGHTS MISMATCH: Flagger, canary 1: split steps [50], expected [20, 50] (100/0 → 50/50 → 100/0)',
    ]);
  });
});

describe('spliceSection', () => {
  const doc = ['# Title', '', 'intro', '', '## A', '', 'a', '', '## Load', '', 'load', ''].join('\n');

  it('replaces the section under the heading, up to the next heading', () => {
    const old = spliceSection(doc, '## G', '## G\n\nold\n', '## Load');
    expect(spliceSection(old, '## G', '## G\n\nnew\n', '## Load')).toBe(
      [
        '# Title',
        '',
        'intro',
        '',
        '## A',
        '',
        'a',
        '',
        '## G',
        '',
        'new',
        '',
        '## Load',
        '',
        'load',
        '',
      ].join('\n'),
    );
  });

  it('replaces a last section up to the end', () => {
    expect(spliceSection('# T\n\n## G\n\nold\n', '## G', '## G\n\nnew')).toBe('# T\n\n## G\n\nnew\n');
  });

  it('puts a new section before the heading named, or at the end without one', () => {
    expect(spliceSection(doc, '## G', '## G\n\ng\n', '## Load')).toContain('a\n\n## G\n\ng\n\n## Load');
    expect(spliceSection('# T\n', '## G', '## G\n\ng\n')).toBe('# T\n\n## G\n\ng\n');
  });
});

describe('gatewayTable', () => {
  const side = (
    controller: string,
    runs: GatewayCanaryRun[],
    extra: Partial<GatewaySide> = {},
  ): GatewaySide => ({
    controller,
    clientLimits: { qps: 50, burst: 100 },
    runs,
    failures: [],
    summary: summarizeGatewaySide(runs, [20, 50]),
    ...extra,
  });

  it('gives a row a side: the time to each split, to done, the weights seen, CPU and memory', () => {
    const table = gatewayTable(
      [
        side('ours', [ours], { cpuSeconds: 1.234, peakRssMb: 170.4, machineBusyCores: 1.456 }),
        side('Flagger', [], { error: 'not built' }),
      ],
      [20, 50],
    ).split('\n');
    expect(table[0]).toContain('| route at 80/20 s (p50 / max) | route at 50/50 s (p50 / max) |');
    expect(table[2]).toBe(
      '| ours | 1 | 50 / 100 | 0.4 / 0.4 | 10.6 / 10.6 | **25.0 / 25.0** | 100/0 → 80/20 → 50/50 → 0/100 → 100/0 (1) | 1.23 | 170 | 1.46 | none |',
    );
    expect(table[3]).toBe(
      '| Flagger | 0 | 50 / 100 | — / — | — / — | **— / —** | — | — | — | — | not built |',
    );
  });
});
