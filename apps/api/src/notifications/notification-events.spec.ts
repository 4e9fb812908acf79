import type { Nginx, NginxStatus } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { deletionEvent, notificationEvents } from './notification-events.js';

const T1 = '2026-11-28T10:00:00Z';
const T2 = '2026-11-28T10:05:00Z';

const nginx = (status: NginxStatus | undefined, generation = 2): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'shop', uid: 'uid-1', generation, labels: { tier: 'web' } },
  spec: { replicas: 2 },
  ...(status ? { status } : {}),
});

const progressing = (status: 'True' | 'False' | 'Unknown', reason: string, at = T1, message = 'm') => ({
  type: 'Progressing',
  status,
  reason,
  message,
  lastTransitionTime: at,
});

const converged = (revision: string, generation = 1): NginxStatus => ({
  currentRevision: revision,
  updateRevision: revision,
  observedGeneration: generation,
  conditions: [progressing('False', 'ReplicasReady')],
});

const rolling: NginxStatus = {
  currentRevision: 'a',
  updateRevision: 'b',
  observedGeneration: 2,
  conditions: [progressing('True', 'RollingUpdate', T2)],
};

const types = (old: NginxStatus | undefined, next: NginxStatus) =>
  notificationEvents(old && nginx(old), nginx(next)).map((event) => event.type);

describe('notificationEvents', () => {
  it('tells nothing without a status seen before (a relist, a first write)', () => {
    expect(types(undefined, rolling)).toEqual([]);
  });

  it('tells a rollout started when the update revision moves ahead of the pods', () => {
    const [started] = notificationEvents(nginx(converged('a')), nginx(rolling));
    expect(started).toMatchObject({
      type: 'rollout-started',
      key: 'uid-1/rollout-started/b/2',
      namespace: 'shop',
      name: 'web',
      revision: 'b',
      labels: { tier: 'web' },
    });
    // The same change seen again (a resync) tells nothing more.
    expect(types(rolling, rolling)).toEqual([]);
  });

  it('tells a rollout completed when every pod runs the update revision, not a scale', () => {
    expect(types(rolling, converged('b', 2))).toEqual(['rollout-completed']);
    expect(types(converged('b', 2), { ...converged('b', 2), replicas: 5 })).toEqual([]);
  });

  it('tells failures by the reason Progressing turned False with, keyed by the transition', () => {
    const failedWith = (reason: string) => ({
      ...rolling,
      conditions: [progressing('False', reason, T2, 'why')],
    });
    expect(types(rolling, failedWith('ProgressDeadlineExceeded'))).toEqual(['progress-deadline-exceeded']);
    expect(types(rolling, failedWith('RolledBack'))).toEqual(['rolled-back']);
    expect(types(rolling, failedWith('CanaryAborted'))).toEqual(['rollout-failed']);
    expect(types(rolling, failedWith('InvalidConfig'))).toEqual(['rollout-failed']);
    const [deadline] = notificationEvents(nginx(rolling), nginx(failedWith('ProgressDeadlineExceeded')));
    expect(deadline).toMatchObject({
      key: `uid-1/progress-deadline-exceeded/b/2/${T2}`,
      at: T2,
      summary: 'why',
    });
    expect(types(failedWith('ProgressDeadlineExceeded'), failedWith('ProgressDeadlineExceeded'))).toEqual([]);
    expect(types(failedWith('ProgressDeadlineExceeded'), failedWith('RolledBack'))).toEqual(['rolled-back']);
  });

  it('tells a canary paused at each step it pauses at, and each analysis run that fails', () => {
    const canary = (step: number, phase: 'Progressing' | 'Paused', runs: string[] = []) => ({
      ...rolling,
      canary: {
        revision: 'b',
        step,
        weight: 20,
        phase,
        stepStartedAt: T2,
        analysisRuns: runs.map((name) => ({
          name,
          templateName: 'errors',
          step,
          phase: 'Failed' as const,
          startedAt: T2,
          measurements: [{ at: T2, query: 'q', value: 1, phase: 'Failed' as const, message: 'errors 1 > 0' }],
        })),
      },
    });
    expect(types(canary(0, 'Progressing'), canary(1, 'Paused'))).toEqual(['canary-paused']);
    expect(types(canary(1, 'Paused'), canary(1, 'Paused'))).toEqual([]);
    expect(types(canary(1, 'Paused'), canary(3, 'Paused'))).toEqual(['canary-paused']);
    const [analysis] = notificationEvents(
      nginx(canary(2, 'Progressing')),
      nginx(canary(2, 'Progressing', ['run-1'])),
    );
    expect(analysis).toMatchObject({ type: 'analysis-failed', key: 'uid-1/analysis-failed/run-1' });
    expect(analysis!.summary).toContain('errors 1 > 0');
    expect(types(canary(2, 'Progressing', ['run-1']), canary(2, 'Progressing', ['run-1']))).toEqual([]);
  });
});

describe('deletionEvent', () => {
  it('is keyed by the uid alone: an Nginx is deleted once', () => {
    expect(deletionEvent(nginx(rolling), T2)).toMatchObject({
      type: 'nginx-deleted',
      key: 'uid-1/nginx-deleted/deleted',
      at: T2,
    });
  });
});
