import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it, vi } from 'vitest';
import type { ReconcileRecordRow } from '../audit/reconcile-record.js';
import { auditedReconcile, ReconcileTriggers, type AuditedReconcileDeps } from './audited-reconcile.js';
import type { ReconcileReport } from './reconcile-report.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team', uid: 'u-web', generation: 4, resourceVersion: '77' },
  spec: { replicas: 3 },
};

function setup(reconcile: AuditedReconcileDeps['reconcile'], attempt = 1) {
  const rows: ReconcileRecordRow[] = [];
  const noops: [string, string][] = [];
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const triggers = new ReconcileTriggers();
  const run = auditedReconcile({
    reconcile,
    triggers,
    attempt: () => attempt,
    audit: { record: (row) => rows.push(row), noop: (namespace, name) => noops.push([namespace, name]) },
    logger,
    instanceId: 'host-1',
  });
  return { run, rows, noops, logger, triggers };
}

const acting = async (_key: string, report: ReconcileReport) => {
  report.observe(nginx);
  report.record({ kind: 'create', pod: 'web-abcde' });
  report.record({ kind: 'delete', pod: 'web-fghij', reason: 'pod-failed' });
  report.counts = { desired: 3, active: 2, ready: 1 };
};

describe('auditedReconcile', () => {
  it('stores one row for a reconcile that acted, with what it saw and did, and logs it with its key', async () => {
    const { run, rows, noops, logger, triggers } = setup(acting);
    triggers.note('team/web', 'nginx-updated');
    triggers.note('team/web', 'pod-event'); // the first reason since the last reconcile is kept
    await run('team/web');
    expect(noops).toEqual([]);
    expect(rows).toEqual([
      expect.objectContaining({
        namespace: 'team',
        name: 'web',
        uid: 'u-web',
        generation: 4,
        resourceVersion: '77',
        trigger: 'nginx-updated',
        desiredReplicas: 3,
        activeReplicas: 2,
        readyReplicas: 1,
        result: 'success',
        error: null,
        attempt: 1,
        instanceId: 'host-1',
      }),
    ]);
    expect(JSON.parse(rows[0]!.actions)).toEqual([
      { kind: 'create', pod: 'web-abcde' },
      { kind: 'delete', pod: 'web-fghij', reason: 'pod-failed' },
    ]);
    expect(rows[0]!.finishedAt.getTime() - rows[0]!.startedAt.getTime()).toBe(rows[0]!.durationMs);
    expect(logger.info).toHaveBeenCalledWith(
      'reconciled',
      expect.objectContaining({ key: 'team/web', result: 'success', actions: 'create 1, delete 1' }),
    );
  });

  it('only counts a reconcile that changed nothing, and logs nothing for it', async () => {
    const { run, rows, noops, logger } = setup(async () => undefined);
    await run('team/web');
    expect(rows).toEqual([]);
    expect(noops).toEqual([['team', 'web']]);
    expect(logger.info).not.toHaveBeenCalled();
  });

  it('stores a failed reconcile with its error and attempt, keeps the part done before it, and rethrows', async () => {
    const failure = new Error('pods "web-" is forbidden: exceeded quota');
    const { run, rows } = setup(async (key, report) => {
      await acting(key, report);
      throw failure;
    }, 3);
    await expect(run('team/web')).rejects.toBe(failure);
    expect(rows[0]).toMatchObject({
      result: 'error',
      error: failure.message,
      attempt: 3,
      trigger: 'retry',
    });
    expect(JSON.parse(rows[0]!.actions)).toHaveLength(2);
  });

  it('marks a reconcile that asked to be looked at again as requeued, and its next one as triggered by that', async () => {
    const { run, rows, triggers } = setup(async (key, report) => {
      await acting(key, report);
      return { requeueAfterMs: 1000 };
    });
    await run('team/web');
    expect(rows[0]!.result).toBe('requeued');
    expect(triggers.take('team/web')).toBe('requeue');
  });

  it('calls a first reconcile with no noted reason a resync', async () => {
    const { run, rows } = setup(acting);
    await run('team/web');
    expect(rows[0]!.trigger).toBe('resync');
  });
});
