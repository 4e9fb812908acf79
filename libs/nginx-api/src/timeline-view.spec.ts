import type { TimelineItem } from './controlplane.js';
import { describe, expect, it } from 'vitest';
import { causeText, entryText, timelineRows } from './timeline-view.js';

const evidence = (
  id: string,
  kind: TimelineItem['kind'],
  at: string,
  fields: Partial<NonNullable<TimelineItem['evidence']>>,
  causes: string[] = [],
): TimelineItem => ({
  id,
  kind,
  at,
  nginxUid: 'n1',
  causes,
  evidence: {
    what: '',
    pod: null,
    podUid: null,
    node: null,
    reason: null,
    message: null,
    actor: null,
    type: null,
    count: null,
    ...fields,
  },
});

const change = {
  id: 'change/1',
  kind: 'change' as const,
  at: '2026-11-26T10:00:00.000Z',
  nginxUid: 'n1',
  causes: [],
  change: {
    id: 1,
    actor: 'eve',
    role: 'editor',
    door: 'controlplane',
    verb: 'patch',
    subresource: null,
    code: 200,
  } as TimelineItem['change'],
};

describe('timelineRows', () => {
  it('folds bursts of like entries into one row, keeping causes outside the burst', () => {
    const items = [
      evidence(
        'event/9',
        'event',
        '2026-11-26T10:00:04.000Z',
        { what: 'FailedCreate', type: 'Warning', message: 'exceeded quota' },
        ['reconcile/2'],
      ),
      evidence(
        'event/8',
        'event',
        '2026-11-26T10:00:03.000Z',
        { what: 'FailedCreate', type: 'Warning', message: 'exceeded quota' },
        ['reconcile/2'],
      ),
      evidence('pod/7', 'pod', '2026-11-26T10:00:02.000Z', { what: 'created', pod: 'web-2' }, [
        'reconcile/2',
      ]),
      evidence('pod/6', 'pod', '2026-11-26T10:00:01.000Z', { what: 'created', pod: 'web-1' }, [
        'reconcile/2',
      ]),
      change,
    ];
    const rows = timelineRows(items, { kinds: [], actor: '' });
    expect(rows.map((row) => [row.id, row.text, row.ids.length, row.causes])).toEqual([
      ['event/9', '2 pod creations refused: exceeded quota', 2, ['reconcile/2']],
      ['pod/7', '2 pods created', 2, ['reconcile/2']],
      ['change/1', 'eve (editor): patch', 1, []],
    ]);
    expect(rows[0]!.tone).toBe('warning');
  });

  it('folds reconciles that changed nothing into one row with a count, across the refusals between them', () => {
    const noop = (n: number, at: string): TimelineItem => ({
      id: `reconcile/${n}`,
      kind: 'reconcile',
      at,
      nginxUid: 'n1',
      causes: [],
      reconcile: {
        trigger: 'retry',
        actions: [],
        result: 'error',
        error: 'exceeded quota',
      } as unknown as TimelineItem['reconcile'],
    });
    const refused = (n: number, at: string) =>
      evidence(`event/${n}`, 'event', at, {
        what: 'FailedCreate',
        type: 'Warning',
        message: 'exceeded quota',
      });
    const items = [
      noop(9, '2026-11-26T10:02:00.000Z'),
      refused(8, '2026-11-26T10:01:59.900Z'),
      noop(7, '2026-11-26T10:01:00.000Z'),
      refused(6, '2026-11-26T10:00:59.900Z'),
      noop(5, '2026-11-26T10:00:30.000Z'),
      change,
      noop(3, '2026-11-26T09:59:00.000Z'),
    ];
    expect(
      timelineRows(items, { kinds: [], actor: '' }).map((row) => [row.id, row.text, row.ids.length]),
    ).toEqual([
      ['reconcile/9', '3 reconciles that changed nothing — error: exceeded quota', 3],
      ['event/8', 'FailedCreate: exceeded quota', 1], // a minute apart: not one burst
      ['event/6', 'FailedCreate: exceeded quota', 1],
      ['change/1', 'eve (editor): patch', 1], // a change ends every fold
      ['reconcile/3', 'reconcile (retry): nothing — error: exceeded quota', 1],
    ]);
  });

  it('keeps a burst of refusals one row across the reconciles folded above it (one per refused retry)', () => {
    const noop = (n: number, at: string): TimelineItem => ({
      id: `reconcile/${n}`,
      kind: 'reconcile',
      at,
      nginxUid: 'n1',
      causes: [],
      reconcile: {
        trigger: 'retry',
        actions: [],
        result: 'error',
        error: 'exceeded quota',
      } as unknown as TimelineItem['reconcile'],
    });
    const refused = (n: number, at: string) =>
      evidence(`event/${n}`, 'event', at, {
        what: 'FailedCreate',
        type: 'Warning',
        message: 'exceeded quota',
      });
    const items = [
      refused(9, '2026-11-26T10:00:04.000Z'),
      noop(8, '2026-11-26T10:00:03.900Z'),
      refused(7, '2026-11-26T10:00:03.000Z'),
      noop(6, '2026-11-26T10:00:02.900Z'),
      refused(5, '2026-11-26T10:00:02.000Z'),
      noop(4, '2026-11-26T10:00:01.900Z'),
      refused(3, '2026-11-26T10:00:01.000Z'),
    ];
    expect(
      timelineRows(items, { kinds: [], actor: '' }).map((row) => [row.id, row.text, row.ids.length]),
    ).toEqual([
      ['event/9', 'FailedCreate: exceeded quota', 1], // the reconcile row below it stands between
      ['reconcile/8', '3 reconciles that changed nothing — error: exceeded quota', 3],
      ['event/7', '3 pod creations refused: exceeded quota', 3],
    ]);
  });

  it("folds a kubelet's or kwok's finishing delete under the row showing that pod going", () => {
    const items = [
      evidence('pod-write/9', 'pod-write', '2026-11-26T10:00:05.000Z', {
        what: 'delete',
        pod: 'web-1',
        actor: 'kwok-controller',
      }),
      evidence('pod-write/8', 'pod-write', '2026-11-26T10:00:04.000Z', {
        what: 'delete',
        pod: 'web-2',
        actor: 'system:node:node-1',
      }),
      evidence('pod/7', 'pod', '2026-11-26T10:00:03.000Z', { what: 'terminating', pod: 'web-1' }),
      evidence('pod-write/6', 'pod-write', '2026-11-26T10:00:02.000Z', {
        what: 'delete',
        pod: 'web-3',
        actor: 'kwok-controller',
      }),
      evidence('pod-write/5', 'pod-write', '2026-11-26T10:00:01.000Z', {
        what: 'delete',
        pod: 'web-2',
        actor: 'erin',
      }),
    ];
    expect(timelineRows(items, { kinds: [], actor: '' }).map((row) => [row.id, row.text, row.ids])).toEqual([
      ['pod/7', 'pod web-1 terminating (deletion finished by kwok-controller)', ['pod/7', 'pod-write/9']],
      // Nothing on the page shows web-3 going: its finishing delete stands alone, at its place.
      ['pod-write/6', 'kwok-controller: delete pod web-3', ['pod-write/6']],
      [
        'pod-write/5',
        'erin: delete pod web-2 (deletion finished by system:node:node-1)',
        ['pod-write/5', 'pod-write/8'],
      ],
    ]);
  });

  it('says each cause in words where the page holds it', () => {
    const scale: TimelineItem = {
      ...change,
      id: 'change/2',
      change: {
        ...change.change!,
        actor: 'erin',
        role: null,
        door: 'kube-apiserver',
        subresource: 'scale',
        specBefore: { replicas: 2 },
        specAfter: { replicas: 4 },
      },
    };
    expect(causeText(scale)).toBe('erin scaled 2 → 4 via kube-apiserver');
    expect(
      causeText({
        ...scale,
        change: {
          ...scale.change!,
          subresource: null,
          specBefore: { image: 'nginx:1.27' },
          specAfter: { image: 'nginx:1.28' },
        },
      }),
    ).toBe('erin set the image nginx:1.27 → nginx:1.28 via kube-apiserver');
    expect(causeText({ ...scale, change: { ...scale.change!, verb: 'create', code: 403 } })).toBe(
      'erin created it via kube-apiserver (refused, 403)',
    );
    const reconcile: TimelineItem = {
      id: 'reconcile/3',
      kind: 'reconcile',
      at: '2026-11-26T10:00:01.000Z',
      nginxUid: 'n1',
      causes: ['change/2'],
      reconcile: {
        trigger: 'nginx',
        actions: [{ kind: 'create' }, { kind: 'create' }],
        result: 'success',
        error: null,
      } as unknown as TimelineItem['reconcile'],
    };
    const pod = evidence('pod/4', 'pod', '2026-11-26T10:00:02.000Z', { what: 'created', pod: 'web-1' }, [
      'reconcile/3',
      'reconcile/99',
    ]);
    const [row] = timelineRows([pod, reconcile, scale], { kinds: [], actor: '' });
    expect(row!.causeTexts).toEqual(["the controller's reconcile (create 2)", 'reconcile/99']);
    expect(timelineRows([pod, reconcile, scale], { kinds: [], actor: '' })[1]!.causeTexts).toEqual([
      'erin scaled 2 → 4 via kube-apiserver',
    ]);
  });

  it('filters by kind and by actor', () => {
    const items = [
      evidence('pod-write/3', 'pod-write', '2026-11-26T10:00:05.000Z', {
        what: 'delete',
        pod: 'web-1',
        actor: 'alice',
      }),
      change,
    ];
    expect(timelineRows(items, { kinds: ['change'], actor: '' }).map((row) => row.id)).toEqual(['change/1']);
    expect(timelineRows(items, { kinds: [], actor: 'ALI' }).map((row) => row.text)).toEqual([
      'alice: delete pod web-1',
    ]);
  });

  it('says who made a change and through which door', () => {
    expect(
      entryText({
        ...change,
        change: { ...change.change!, actor: 'admin', role: null, door: 'kube-apiserver' },
      }),
    ).toBe('admin via kube-apiserver: patch');
    expect(
      entryText({
        ...change,
        change: { ...change.change!, actor: '', role: null, door: 'unknown', code: 200 },
      }),
    ).toBe('someone (via unknown): patch');
  });

  it('shows a gap the audit knows of as a warning, with what was lost and who saw it', () => {
    const gap = evidence('gap/3', 'gap', '2026-11-26T10:00:00.000Z', {
      what: 'audit-queue-overflow',
      type: 'Warning',
      count: 4,
      reason: "the app's audit writer",
      message: '4 audit records dropped: the audit queue was full (…)',
    });
    expect(entryText(gap)).toBe(
      "audit gap: 4 audit records dropped: the audit queue was full (…) — seen by the app's audit writer",
    );
    expect(timelineRows([gap], { kinds: ['gap'], actor: '' })[0]).toMatchObject({
      tone: 'warning',
      kind: 'gap',
    });
  });
});
