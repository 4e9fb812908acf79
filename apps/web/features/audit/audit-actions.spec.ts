import { describe, expect, it } from 'vitest';
import type { ReconcileAction } from '@/lib/api/api-client';
import { describeAction, summariseActions } from './audit-actions';

const pod = (kind: ReconcileAction['kind'], name: string, reason?: string): ReconcileAction => ({
  kind,
  pod: name,
  ...(reason ? { reason } : {}),
});

describe('summariseActions', () => {
  it('says when nothing was done', () => {
    expect(summariseActions([])).toBe('no actions');
  });

  it('counts pod actions by verb, in first-seen order', () => {
    expect(
      summariseActions([pod('create', 'a'), { kind: 'status' }, pod('create', 'b'), pod('delete', 'c')]),
    ).toBe('created 2 pods · status updated · deleted 1 pod');
  });

  it('does not count deleted objects as pods', () => {
    expect(
      summariseActions([
        pod('delete', 'a'),
        { kind: 'delete', object: 'web-cfg', reason: 'config-unused' },
        { kind: 'service', object: 'web', reason: 'created' },
        { kind: 'budget', object: 'web', reason: 'updated' },
        { kind: 'config', object: 'web-cfg' },
        { kind: 'revision', object: 'web-abc' },
      ]),
    ).toBe(
      'deleted 1 pod · deleted 1 object · service created · disruption budget updated · config written · revision recorded',
    );
  });
});

describe('describeAction', () => {
  it('names the pod or object acted on, and why', () => {
    expect(describeAction(pod('create', 'web-1'))).toBe('created pod web-1');
    expect(describeAction(pod('delete', 'web-2', 'scale down'))).toBe('deleted pod web-2 (scale down)');
    expect(describeAction({ kind: 'status' })).toBe('wrote status');
    expect(describeAction({ kind: 'delete', object: 'web-old', reason: 'revision-history-limit' })).toBe(
      'deleted web-old (revision-history-limit)',
    );
    expect(describeAction({ kind: 'config', object: 'web-cfg', revision: 'abc' })).toBe(
      'created ConfigMap web-cfg for revision abc',
    );
    expect(describeAction({ kind: 'service', object: 'web', reason: 'created' })).toBe('created Service web');
    expect(describeAction({ kind: 'budget', object: 'web' })).toBe('synced PodDisruptionBudget web');
  });
});

describe('canary actions', () => {
  const measured = (phase: 'Successful' | 'Failed', value: number) => ({
    kind: 'analysis' as const,
    object: 'abc-2-error-rate',
    measurement: { at: '2026-11-26T10:00:00Z', query: 'sum(rate(x[1m]))', value, phase },
  });

  it('names each measurement: the run, the value, the verdict and the query', () => {
    expect(describeAction(measured('Failed', 0.05))).toBe(
      'analysis run abc-2-error-rate measured 0.05: Failed (sum(rate(x[1m])))',
    );
  });

  it('names the run that caused an abort', () => {
    expect(describeAction({ kind: 'canary', reason: 'aborted', object: 'abc-2-error-rate' })).toBe(
      'canary aborted by analysis run abc-2-error-rate',
    );
    expect(summariseActions([measured('Successful', 0), measured('Successful', 0.001)])).toBe(
      '2 measurements Successful',
    );
  });
});

describe('a route action (a canary with trafficRouting)', () => {
  const route = {
    kind: 'route' as const,
    object: 'HTTPRoute shop/web',
    reason: 'weight 20, header route beta',
  };
  it('says which route was written, and to what', () => {
    expect(describeAction(route)).toBe('wrote HTTPRoute shop/web: weight 20, header route beta');
    expect(summariseActions([route, { kind: 'status' }])).toBe(
      'route set to weight 20, header route beta · status updated',
    );
  });
});

describe('blue-green actions', () => {
  it('names the step, the revision and the run an abort names, and counts them by step', () => {
    expect(describeAction({ kind: 'blue-green', reason: 'promoted', revision: 'green' })).toBe(
      'blue-green promoted (green)',
    );
    expect(
      describeAction({
        kind: 'blue-green',
        reason: 'aborted',
        revision: 'green',
        object: 'green-pre-errors',
      }),
    ).toBe('blue-green aborted (green) by analysis run green-pre-errors');
    expect(
      summariseActions([
        { kind: 'blue-green', reason: 'preview started', revision: 'green' },
        { kind: 'create', pod: 'web-1' },
        { kind: 'status' },
      ]),
    ).toBe('blue-green preview started · created 1 pod · status updated');
  });
});
