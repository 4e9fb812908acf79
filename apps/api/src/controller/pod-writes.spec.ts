import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import {
  KubeApiError,
  LeadershipEnded,
  Store,
  type KubeObject,
  type KubeRequest,
  type KubeRequester,
} from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { rolloutView } from './nginx-status.js';
import { PodWrites, type PodWriteMetrics } from './pod-writes.js';
import { configMapFor } from './pod-builder.js';
import { ReconcileReport } from './reconcile-report.js';
import { StrayPods } from './stray-pods.js';

const KEY = 'default/web';
const NGINX_PATH = '/apis/mycompany.com/v1/namespaces/default/nginxes/web';
const PODS_PATH = '/api/v1/namespaces/default/pods';

const nginx = (spec: Partial<Nginx['spec']> = {}): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web', generation: 1 },
  spec: { replicas: 1, ...spec },
});

const pod = (name: string, metadata: V1Pod['metadata'] = {}): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...metadata },
});

const refusal = (code: number, message = `refused with ${code}`) =>
  new KubeApiError(code, { kind: 'Status', code, message });

/** Answers each request with `answer` (a throw fails it), keeping every request and what was told about them. */
function setup(answer: (req: KubeRequest) => unknown = (req) => req.body ?? {}) {
  const requests: KubeRequest[] = [];
  const client: KubeRequester = {
    request: async <T>(req: KubeRequest) => {
      requests.push(req);
      return answer(req) as T;
    },
  };
  const events: string[] = [];
  const counted: string[] = [];
  const metrics: PodWriteMetrics = {
    podCreated: () => counted.push('created'),
    podDeleted: (reason) => counted.push(`deleted ${reason}`),
    podCreateFailed: () => counted.push('create failed'),
  };
  const configMaps = new Store<V1ConfigMap & KubeObject>();
  const strays = new StrayPods();
  const writes = new PodWrites({
    client,
    events: { event: (_object, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    configMaps,
    strays,
    metrics,
  });
  return { writes, requests, events, counted, configMaps, strays, report: new ReconcileReport() };
}

describe('PodWrites', () => {
  it('tells a created pod, and a refused creation, in the report, an Event and the metrics', async () => {
    const created = setup(() => ({ metadata: { name: 'web-a1', labels: {} } }));
    await created.writes.create(nginx(), rolloutView(nginx(), 0), created.report);
    expect(created.report.actions).toEqual([{ kind: 'create', pod: 'web-a1' }]);
    expect(created.events).toEqual(['Normal SuccessfulCreate: Created pod: web-a1']);
    expect(created.counted).toEqual(['created']);

    const refused = setup(() => {
      throw refusal(403, 'exceeded quota');
    });
    await expect(refused.writes.create(nginx(), rolloutView(nginx(), 0), refused.report)).rejects.toThrow(
      'exceeded quota',
    );
    expect(refused.report.actions).toEqual([]);
    expect(refused.events).toEqual(['Warning FailedCreate: Error creating: exceeded quota']);
    expect(refused.counted).toEqual(['create failed']);
  });

  it('tells nothing of a write that failed because the term ended', async () => {
    const ended = setup(() => {
      throw new LeadershipEnded('lost');
    });
    const view = rolloutView(nginx(), 0);
    await expect(ended.writes.create(nginx(), view, ended.report)).rejects.toBeInstanceOf(LeadershipEnded);
    await expect(ended.writes.delete(nginx(), pod('web-1'), 'surplus', ended.report)).rejects.toBeInstanceOf(
      LeadershipEnded,
    );
    expect(ended.events).toEqual([]);
    expect(ended.counted).toEqual([]);
  });

  it('takes a pod already gone as deleted, telling nothing, and a refused deletion as a failure', async () => {
    const gone = setup(() => {
      throw refusal(404);
    });
    await gone.writes.delete(nginx(), pod('web-1'), 'surplus', gone.report);
    expect(gone.requests[0]).toMatchObject({
      method: 'DELETE',
      path: `${PODS_PATH}/web-1`,
      body: { preconditions: { uid: 'uid-web-1' } },
    });
    expect([gone.report.actions, gone.events, gone.counted]).toEqual([[], [], []]);

    const refused = setup(() => {
      throw refusal(403, 'forbidden');
    });
    await expect(refused.writes.delete(nginx(), pod('web-1'), 'surplus', refused.report)).rejects.toThrow(
      'forbidden',
    );
    expect(refused.events).toEqual(['Warning FailedDelete: Error deleting pod web-1: forbidden']);
  });

  it('creates the ConfigMap pods mount unless the cache holds it, and takes one already there as the right one', async () => {
    const spec = { port: 8080 }; // a port of its own: pods mount a config listening there
    const view = rolloutView(nginx(spec), 0);
    const configMap = configMapFor(nginx(spec), view.template)!;

    const exists = setup(() => {
      throw refusal(409);
    });
    await exists.writes.ensureConfigMap(nginx(spec), view, exists.report);
    expect(exists.requests).toHaveLength(1);
    expect(exists.events).toEqual([]);

    const cached = setup();
    cached.configMaps.upsert(
      cached.configMaps.accept({
        ...configMap,
        metadata: { ...configMap.metadata, resourceVersion: '1' },
      } as V1ConfigMap & KubeObject),
    );
    await cached.writes.ensureConfigMap(nginx(spec), view, cached.report);
    expect(cached.requests).toEqual([]);
  });

  it.each([
    ['gone', () => Promise.reject(refusal(404)), /is gone/],
    ['replaced', () => ({ ...nginx(), metadata: { ...nginx().metadata, uid: 'u-new' } }), /was replaced/],
    [
      'being deleted',
      () => ({ ...nginx(), metadata: { ...nginx().metadata, deletionTimestamp: new Date(0) } }),
      /being deleted/,
    ],
  ])('adopts for no Nginx the fresh read shows %s', async (_what, answer, why) => {
    const { writes, requests } = setup(answer);
    expect(await writes.whyNotAdopt(nginx())).toMatch(why);
    expect(requests.map((r) => `${r.method ?? 'GET'} ${r.path}`)).toEqual([`GET ${NGINX_PATH}`]);
  });

  it('adopts for the Nginx the fresh read shows unchanged, skipping an orphan gone meanwhile', async () => {
    const { writes, report } = setup((req) => {
      if (req.method === undefined) return nginx();
      if (req.path.endsWith('/web-gone')) throw refusal(404);
      return pod('web-1');
    });
    expect(await writes.whyNotAdopt(nginx())).toBeUndefined();
    expect(await writes.adopt(nginx(), pod('web-1'), report)).toMatchObject({ metadata: { name: 'web-1' } });
    expect(await writes.adopt(nginx(), pod('web-gone'), report)).toBeUndefined();
    expect(report.actions).toEqual([{ kind: 'adopt', pod: 'web-1' }]);
  });

  it('releases nothing of a pod gone, replaced or no longer ours, and fails on any other refusal', async () => {
    for (const code of [404, 409, 422]) {
      const { writes, report } = setup(() => {
        throw refusal(code);
      });
      await writes.release(nginx(), pod('web-1'), report);
      expect(report.actions).toEqual([]);
    }
    const { writes, report } = setup(() => {
      throw refusal(500, 'etcd unavailable');
    });
    await expect(writes.release(nginx(), pod('web-1'), report)).rejects.toThrow('etcd unavailable');
  });

  it('settles a stray candidate once looked at: released when still ours and mislabelled, else let be', async () => {
    const owner = [
      { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: 'u-web', controller: true },
    ];
    const relabelled = pod('web-moved', { labels: {}, ownerReferences: owner });
    const recreated = pod('web-again', { uid: 'uid-other', labels: {}, ownerReferences: owner });
    const { writes, strays, requests, report } = setup((req) => {
      if (req.method === 'PATCH') return {};
      if (req.path.endsWith('/web-moved')) return relabelled;
      if (req.path.endsWith('/web-again')) return recreated;
      throw refusal(404);
    });
    strays.add(KEY, relabelled);
    strays.add(KEY, pod('web-again'));
    strays.add(KEY, pod('web-deleted'));
    await writes.releaseStrays(KEY, nginx(), report);
    expect(requests.filter((r) => r.method === 'PATCH').map((r) => r.path)).toEqual([
      `${PODS_PATH}/web-moved`,
    ]);
    expect(report.actions).toEqual([{ kind: 'release', pod: 'web-moved', reason: 'labels-no-longer-match' }]);
    expect(strays.candidates(KEY)).toEqual([]);
  });
});
