import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../../libs/kube-runtime/src/index.js';
import { FakeClock } from '../../libs/kube-runtime/src/testing/fake-clock.js';
import { runtimeClient } from '../support/runtime.js';
import { staysTrue, waitFor } from '../support/wait.js';

describe('KubeClient against the local cluster', () => {
  it('passes the API server Status through on errors', async () => {
    const client = runtimeClient();
    try {
      const missing = client.request({ path: '/api/v1/namespaces/default/pods/does-not-exist' });
      await expect(missing).rejects.toBeInstanceOf(KubeApiError);
      await expect(missing).rejects.toMatchObject({
        code: 404,
        reason: 'NotFound',
        message: 'pods "does-not-exist" not found',
      });

      const invalid = client.request({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { metadata: { name: 'Not_Valid' } },
      });
      await expect(invalid).rejects.toMatchObject({ code: 422, reason: 'Invalid' });
    } finally {
      client.close();
    }
  });

  it('holds requests beyond the burst until the QPS limiter has a token for them', async () => {
    const clock = new FakeClock();
    const client = runtimeClient({ qps: 1, burst: 2, clock });
    try {
      const finished: number[] = [];
      const requests = [0, 1, 2, 3].map((i) =>
        client.request({ path: '/version' }).then(() => finished.push(i)),
      );
      await waitFor('the burst to be answered', () => finished.length === 2);
      await staysTrue('the others held', () => finished.length === 2, 200);
      expect(finished.sort()).toEqual([0, 1]);
      clock.advance(1000);
      await waitFor('one more token', () => finished.length === 3);
      await staysTrue('the last one held', () => finished.length === 3, 200);
      expect(finished.sort()).toEqual([0, 1, 2]);
      clock.advance(1000);
      await Promise.all(requests);
      expect(finished.sort()).toEqual([0, 1, 2, 3]);
    } finally {
      client.close();
    }
  });

  it('lets exempt requests past the limit and serves low ones only after every waiting normal one', async () => {
    const clock = new FakeClock();
    const client = runtimeClient({ qps: 1, burst: 1, clock });
    try {
      const order: string[] = [];
      const send = (name: string, priority: 'normal' | 'low' | 'exempt') =>
        client.request({ path: '/version', priority }).then(() => order.push(name));
      await send('first', 'normal'); // uses the only token
      const low = send('low', 'low');
      const normal = send('normal', 'normal');
      await send('exempt', 'exempt');
      expect(order).toEqual(['first', 'exempt']);
      clock.advance(1000);
      await normal;
      await staysTrue('the low one held', () => order.length === 3, 200);
      expect(order).toEqual(['first', 'exempt', 'normal']);
      clock.advance(1000);
      await low;
      expect(order).toEqual(['first', 'exempt', 'normal', 'low']);
    } finally {
      client.close();
    }
  });
});
