import { describe, expect, it } from 'vitest';
import type { CpuProfile } from './cpu-profile.js';
import { callTree, flameGraphSvg, inclusiveShare, origin, selfTimes, timeByOrigin } from './flame-graph.js';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0, columnNumber: 0 },
  children,
});

/**
 * (root) → main → reconcile → JSON.parse-ish parse; main → write; plus idle and GC. Each sample lasts 1 ms
 * (timeDeltas are the gap before each sample, in µs).
 */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 5, 6]),
    frame(2, 'main', 'file:///repo/apps/api/dist/main.js', [3, 7]),
    frame(3, 'reconcile', 'file:///repo/apps/api/dist/controller/reconciler.js', [4]),
    frame(4, 'parseWatchLine', 'file:///repo/libs/kube-runtime/dist/watch-stream.js'),
    frame(5, '(idle)', ''),
    frame(6, '(garbage collector)', ''),
    frame(7, 'write', 'file:///repo/node_modules/@prisma/adapter-better-sqlite3/dist/index.js'),
  ],
  startTime: 0,
  endTime: 10_000,
  samples: [4, 4, 4, 3, 2, 5, 5, 6, 7, 7],
  timeDeltas: Array.from({ length: 10 }, () => 1000),
};

describe('flame graph', () => {
  it('names where code comes from: a package, a file of ours, node or V8', () => {
    expect(origin('file:///repo/node_modules/@nestjs/core/router.js')).toBe('@nestjs/core');
    expect(origin('file:///repo/node_modules/express/lib/router.js')).toBe('express');
    expect(origin('file:///repo/libs/kube-runtime/dist/client.js')).toBe('libs/kube-runtime/client.ts');
    expect(origin('file:///repo/apps/api/dist/generated/prisma-sqlite/runtime/client.js')).toBe(
      'prisma (generated client)',
    );
    expect(origin('node:internal/http')).toBe('node');
    expect(origin('')).toBe('V8');
  });

  it('adds up CPU time through the call tree and leaves idle time out', () => {
    const root = callTree(profile);
    expect(root.ms).toBe(8); // 10 samples, 2 idle
    const main = root.children.get('main\u0000apps/api/main.ts')!;
    expect(main.ms).toBe(7);
    expect(main.children.get('reconcile\u0000apps/api/controller/reconciler.ts')!.ms).toBe(4);
  });

  it('ranks functions by their own time, and origins with GC on its own', () => {
    expect(selfTimes(profile)[0]).toEqual({
      name: 'parseWatchLine',
      where: 'libs/kube-runtime/watch-stream.ts',
      ms: 3,
    });
    expect(timeByOrigin(profile)).toEqual([
      { where: 'libs/kube-runtime/watch-stream.ts', ms: 3 },
      { where: '@prisma/adapter-better-sqlite3', ms: 2 },
      { where: '(garbage collector)', ms: 1 },
      { where: 'apps/api/controller/reconciler.ts', ms: 1 },
      { where: 'apps/api/main.ts', ms: 1 },
    ]);
  });

  it('draws a standalone SVG with a tooltip per frame and escaped names', () => {
    const svg = flameGraphSvg(profile, 'create <phase> & more', 400);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('create &lt;phase&gt; &amp; more');
    expect(svg).toContain('<title>parseWatchLine (libs/kube-runtime/watch-stream.ts): 3 ms, 37.5%</title>');
    expect(svg).not.toContain('(idle)');
    expect(svg.match(/<rect /g)!.length).toBe(1 + 6); // background + all, main, reconcile, parse, write, GC
  });

  it('gives the share of CPU spent in an origin and the libraries it called, not our code it called back', () => {
    // 8 CPU ms of 10 samples (2 idle): main 1, reconcile 1 → parseWatchLine 3 (ours: not the reconcile's),
    // write 2 (a library, under main), GC 1.
    expect(inclusiveShare(profile, (where) => where === 'apps/api/controller/reconciler.ts')).toBeCloseTo(
      1 / 8,
    );
    expect(inclusiveShare(profile, (where) => where === 'apps/api/main.ts')).toBeCloseTo(3 / 8);
    expect(inclusiveShare(profile, (where) => where.startsWith('@prisma/'))).toBeCloseTo(2 / 8);
    expect(inclusiveShare(profile, () => false)).toBe(0);
  });
});
