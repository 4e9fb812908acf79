import { describe, expect, it } from 'vitest';
import { ANY_NGINX, gapEntry, LossTally } from './audit-gap.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, second));

describe('audit gaps', () => {
  it('tallies a loss per Nginx from its first drop, and starts afresh once drained', () => {
    const tally = new LossTally();
    tally.add('shop', 'web', at(1));
    tally.add('shop', 'web', at(2));
    tally.add('shop', 'api', at(3));
    expect(tally.total).toBe(3);
    expect(tally.drain('audit-queue-overflow', 'writer', at(9))).toEqual([
      {
        what: 'audit-queue-overflow',
        from: at(1),
        until: at(9),
        count: 2,
        namespace: 'shop',
        nginx: 'web',
        detail: 'writer',
      },
      {
        what: 'audit-queue-overflow',
        from: at(1),
        until: at(9),
        count: 1,
        namespace: 'shop',
        nginx: 'api',
        detail: 'writer',
      },
    ]);
    expect(tally.total).toBe(0);
    expect(tally.drain('audit-queue-overflow', 'writer')).toEqual([]);
  });

  it('names at most 1,000 Nginxes; the rest count toward one gap of unknown Nginx', () => {
    const tally = new LossTally();
    for (let index = 0; index < 1_003; index++) tally.add('ns', `n${index}`, at(0));
    const gaps = tally.drain('audit-queue-overflow', 'writer', at(1));
    expect(gaps).toHaveLength(1_001);
    expect(gaps.at(-1)).toEqual({
      what: 'audit-queue-overflow',
      from: at(0),
      until: at(1),
      count: 3,
      detail: 'writer',
    });
  });

  it('is a Warning timeline entry placed where the loss began, stored once, shown to every Nginx when whose is unknown', () => {
    const entry = gapEntry({
      what: 'audit-events-lost',
      from: at(1),
      until: at(40),
      count: 7,
      detail: "kube-apiserver's audit webhook",
    });
    expect(entry).toEqual({
      at: at(1),
      namespace: ANY_NGINX,
      nginx: ANY_NGINX,
      kind: 'gap',
      what: 'audit-events-lost',
      type: 'Warning',
      count: 7,
      reason: "kube-apiserver's audit webhook",
      message:
        '7 audit events lost: kube-apiserver gave up delivering them (2026-11-26T10:00:01.000Z – 2026-11-26T10:00:40.000Z)',
      dedupeKey: 'gap:audit-events-lost:/:2026-11-26T10:00:01.000Z:2026-11-26T10:00:40.000Z',
    });
  });
});
