import type { CoreV1Event, V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { EventRecorder, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { runtimeClient } from '../support/runtime.js';
import { uniqueName } from '../support/wait.js';

const client = runtimeClient();
afterAll(() => client.close());

async function eventsFor(uid: string): Promise<CoreV1Event[]> {
  const list = await client.request<{ items: CoreV1Event[] }>({
    path: '/api/v1/namespaces/default/events',
    query: { fieldSelector: `involvedObject.uid=${uid}` },
  });
  return list.items;
}

/** Every Event in the cluster with this reason, in any namespace. */
async function eventsWithReason(reason: string): Promise<CoreV1Event[]> {
  const list = await client.request<{ items: CoreV1Event[] }>({
    path: '/api/v1/events',
    query: { fieldSelector: `reason=${reason}` },
  });
  return list.items;
}

async function configMap(prefix: string): Promise<V1ConfigMap & KubeObject> {
  return client.request<V1ConfigMap & KubeObject>({
    method: 'POST',
    path: '/api/v1/namespaces/default/configmaps',
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName(prefix) } },
  });
}

describe('EventRecorder against the local cluster', () => {
  it('records Events on an object and aggregates repeats into one with a count', async () => {
    const owner = await configMap('events');
    const recorder = new EventRecorder({ client, component: 'nginx-controller', instance: 'test' });
    recorder.event(
      { ...owner, kind: 'ConfigMap', apiVersion: 'v1' },
      'Normal',
      'SuccessfulCreate',
      'Created pod: web-1',
    );
    for (let i = 0; i < 4; i++) {
      recorder.event(
        { ...owner, kind: 'ConfigMap', apiVersion: 'v1' },
        'Warning',
        'FailedCreate',
        'pods is forbidden',
      );
    }
    await recorder.flush();

    const events = await eventsFor(owner.metadata!.uid!);
    const byReason = Object.fromEntries(events.map((e) => [e.reason, e]));
    expect(Object.keys(byReason).sort()).toEqual(['FailedCreate', 'SuccessfulCreate']);
    expect(byReason.FailedCreate).toMatchObject({ type: 'Warning', count: 4, message: 'pods is forbidden' });
    expect(byReason.SuccessfulCreate).toMatchObject({ type: 'Normal', count: 1 });
    expect(byReason.SuccessfulCreate?.involvedObject).toMatchObject({
      kind: 'ConfigMap',
      name: owner.metadata!.name,
    });
    expect(byReason.SuccessfulCreate?.source?.component).toBe('nginx-controller');
    // Every field the recorder sets is what kube-apiserver stored, read back from it.
    for (const event of events) {
      expect(event).toMatchObject({
        metadata: { namespace: 'default' },
        involvedObject: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: owner.metadata!.name,
          namespace: 'default',
          uid: owner.metadata!.uid,
        },
        reportingComponent: 'nginx-controller',
        reportingInstance: 'test',
      });
      expect(event.metadata.name!.startsWith(`${owner.metadata!.name}.`)).toBe(true);
      expect(Date.parse(String(event.firstTimestamp))).not.toBeNaN();
      expect(Date.parse(String(event.lastTimestamp))).toBeGreaterThanOrEqual(
        Date.parse(String(event.firstTimestamp)),
      );
    }
  });

  it('drops events beyond the per-object burst instead of flooding the API server', async () => {
    const owner = await configMap('spam');
    const recorder = new EventRecorder({ client, component: 'nginx-controller', instance: 'test', burst: 3 });
    for (let i = 0; i < 50; i++)
      recorder.event({ ...owner, kind: 'ConfigMap' }, 'Normal', 'Tick', `tick ${i}`);
    await recorder.flush();
    expect(recorder.droppedCount).toBe(47);
    // flush() resolved once every write the recorder let through had its answer, and an unpinned list is a
    // consistent read: what is there now is all there will be.
    const events = await eventsFor(owner.metadata!.uid!);
    expect(events.map((e) => e.message).sort()).toEqual(['tick 0', 'tick 1', 'tick 2']);
    expect(events.every((e) => e.count === 1)).toBe(true);
  });

  it('never throws for an object it cannot describe or a write that fails, and still records the next event', async () => {
    const warnings: { message: string; context?: Record<string, unknown> }[] = [];
    const logger = {
      info() {},
      error() {},
      warn: (message: string, context?: Record<string, unknown>) =>
        warnings.push({ message, ...(context ? { context } : {}) }),
    };
    const recorder = new EventRecorder({ client, component: 'c', instance: 'i', logger });
    const reason = `Probe${Date.now().toString(36)}`;

    // No name or uid: nothing to describe, so nothing is written (and nothing is counted as dropped).
    expect(() => recorder.event({ metadata: {} }, 'Normal', reason, 'undescribable')).not.toThrow();
    // A namespace that does not exist: the write fails on the server, is logged, and never reaches the caller.
    const nowhere = `nowhere-${Date.now().toString(36)}`;
    expect(() =>
      recorder.event(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'ghost', namespace: nowhere, uid: crypto.randomUUID() },
        },
        'Warning',
        reason,
        'in a missing namespace',
      ),
    ).not.toThrow();
    // Then an object it can describe: that one lands.
    const owner = await configMap('after-bad');
    recorder.event({ ...owner, kind: 'ConfigMap', apiVersion: 'v1' }, 'Normal', reason, 'described');
    await recorder.flush();

    expect(recorder.droppedCount).toBe(0);
    expect(warnings).toEqual([
      expect.objectContaining({
        message: 'could not record event',
        context: expect.objectContaining({ reason, object: `${nowhere}/ghost` }),
      }),
    ]);
    const events = await eventsWithReason(reason);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'Normal',
      reason,
      message: 'described',
      count: 1,
      involvedObject: { kind: 'ConfigMap', name: owner.metadata!.name, uid: owner.metadata!.uid },
      source: { component: 'c' },
      reportingInstance: 'i',
    });
  });
});
