import { describe, expect, it } from 'vitest';
import { ARGO_BLUE_GREEN, NGINX_BLUE_GREEN, blueGreenTable, medianAndMax } from './bluegreen.js';

describe('the blue-green rows', () => {
  it('take the median (the lower of two middles) and the largest', () => {
    expect(medianAndMax([0.3, 0.1, 0.2])).toEqual({ p50: 0.2, max: 0.3 });
    expect(medianAndMax([0.4, 0.1])).toEqual({ p50: 0.1, max: 0.4 });
    expect(medianAndMax([])).toEqual({ p50: NaN, max: NaN });
  });

  it('give both sides the same settings: no automatic promotion, the same scale-down delay', () => {
    const ours = NGINX_BLUE_GREEN.manifest('web', 3, 'nginx:1.27') as {
      spec: { strategy: { blueGreen: object } };
    };
    const argo = ARGO_BLUE_GREEN.manifest('web', 3, 'nginx:1.27') as {
      spec: { strategy: { blueGreen: object } };
    };
    for (const side of [ours, argo])
      expect(side.spec.strategy.blueGreen).toMatchObject({
        autoPromotionEnabled: false,
        scaleDownDelaySeconds: 5,
      });
    expect(ARGO_BLUE_GREEN.services('web').map((s) => s.metadata?.name)).toEqual([
      'web-active',
      'web-preview',
    ]);
  });

  it('print a row per side, an error in place of figures', () => {
    const times = { switchedP50: 0.1, switchedMax: 0.2, activeSelectorWrites: 5 };
    const table = blueGreenTable([
      {
        controller: 'ours',
        objects: 5,
        replicas: 3,
        promote: times,
        abort: { ...times, podsGoneP50: 0.6, podsGoneMax: 0.8, activeSelectorWrites: 0 },
      },
      { controller: 'argo', objects: 5, replicas: 3, promote: times, abort: times, error: 'timed out' },
    ]);
    expect(table.split('\n')).toEqual([
      expect.stringContaining('| controller |'),
      expect.stringContaining('| --- |'),
      '| ours | 5 × 3 | **0.10** / 0.20 | **0.60** / 0.80 | 5 / 0 |',
      '| argo | 5 × 3 | — | — | timed out |',
    ]);
  });
});
