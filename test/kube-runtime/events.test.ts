import type { CoreV1Event, V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { EventRecorder, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { runtimeClient } from '../support/runtime.js';
import { sleep, uniqueName, waitFor } from '../support/wait.js';

const client = runtimeClient();
afterAll(() => client.close());

async function eventsFor(uid: string): Promise<CoreV1Event[]> {
  const list = await client.request<{ items: CoreV1Event[] }>({
    path: '/api/v1/namespaces/default/events',
    query: { fieldSelector: `involvedObject.uid=${uid}` },
  });
  return list.items;
}

describe('EventRecorder against the local cluster', () => {
  it('records Events on an object and aggregates repeats into one with a count', async () => {
    const owner = await client.request<V1ConfigMap & KubeObject>({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('events') } },
    });
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
  });

  it('drops events beyond the per-object burst instead of flooding the API server', async () => {
    const owner = await client.request<V1ConfigMap & KubeObject>({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('spam') } },
    });
    const recorder = new EventRecorder({ client, component: 'nginx-controller', instance: 'test', burst: 3 });
    for (let i = 0; i < 50; i++)
      recorder.event({ ...owner, kind: 'ConfigMap' }, 'Normal', 'Tick', `tick ${i}`);
    await recorder.flush();
    expect(recorder.droppedCount).toBe(47);
    await waitFor(
      'the 3 events let through',
      async () => (await eventsFor(owner.metadata!.uid!)).length === 3,
    );
    await sleep(300);
    expect(await eventsFor(owner.metadata!.uid!)).toHaveLength(3);
  });

  it('never throws for an object it cannot describe', () => {
    const recorder = new EventRecorder({ client, component: 'c', instance: 'i' });
    expect(() => recorder.event({ metadata: {} }, 'Normal', 'X', 'y')).not.toThrow();
  });
});
