import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { InformerFactory, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { runtimeClient } from '../support/runtime.js';
import { waitFor } from '../support/wait.js';

const handles = () =>
  process
    .getActiveResourcesInfo()
    .filter((kind) => kind === 'TCPSocketWrap' || kind === 'TLSWrap' || kind === 'Timeout');

describe('stopping informers', () => {
  it('leaves no open sockets or timers behind', async () => {
    const before = handles().length;
    const client = runtimeClient();
    const factory = new InformerFactory();
    const pods = factory.informerFor<V1Pod & KubeObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'pods' },
      kind: 'Pod',
      resyncPeriodMs: 60_000,
    });
    const sameAgain = factory.informerFor<V1Pod & KubeObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'pods' },
      kind: 'Pod',
    });
    expect(sameAgain).toBe(pods); // one list/watch per resource and selector
    factory.informerFor({
      client,
      resource: { group: '', version: 'v1', plural: 'configmaps' },
      kind: 'ConfigMap',
    });

    const abort = new AbortController();
    factory.start(abort.signal);
    expect(await factory.waitForCacheSync()).toBe(true);
    expect(handles().length).toBeGreaterThan(before);

    abort.abort();
    await factory.stopped();
    client.close();
    await waitFor('the handles released', () => handles().length <= before);
  });
});
