import type { TimelineItem } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { entryText, timelineRows } from './timeline-view';

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
