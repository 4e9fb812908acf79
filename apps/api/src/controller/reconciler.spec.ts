import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1EndpointSlice,
  V1Ingress,
  V1Pod,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import {
  EventRecorder,
  Expectations,
  FencedClient,
  KubeApiError,
  METADATA_ONLY,
  LeadershipEnded,
  Store,
  type KubeObject,
  type KubeRequest,
  type KubeRequester,
} from '@ngx/kube-runtime';
import { LABEL_REVISION, podTemplateOf, revisionOf, type Nginx } from '@ngx/nginx-api';
import { describe, expect, it, vi } from 'vitest';
import { BY_NGINX_LABEL, byNginxLabel, owningNginxKey, PODS_BY_NGINX } from '../kube/pod-index.js';
import { controllerRevisionFor } from './owned-objects.js';
import { podSelector } from './pod-builder.js';
import { NginxReconciler, ReconcileError } from './reconciler.js';
import { ReconcileReport } from './reconcile-report.js';
import { StrayPods } from './stray-pods.js';
import type { AnalysisMeasurer } from '../analysis/analysis-run.js';

const KEY = 'default/web';
const NGINX_PATH = '/apis/mycompany.com/v1/namespaces/default/nginxes/web';
const PODS_PATH = '/api/v1/namespaces/default/pods';

const nginx = (replicas: number, extra: Partial<Nginx> = {}): Nginx & KubeObject => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web', generation: 1, resourceVersion: '10' },
  spec: { replicas },
  ...extra,
});

/** The revision of nginx(n): only replicas differ between them. */
const REVISION = revisionOf(podTemplateOf({ replicas: 1 }));

let podCount = 0;
function pod(
  options: { owner?: string | null; labels?: Record<string, string>; ready?: boolean; name?: string } = {},
): V1Pod & KubeObject {
  const name = options.name ?? `web-${++podCount}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '5',
      labels: options.labels ?? { ...podSelector('web'), [LABEL_REVISION]: REVISION },
      ...(options.owner === null
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'mycompany.com/v1',
                kind: 'Nginx',
                name: 'web',
                uid: options.owner ?? 'u-web',
                controller: true,
              },
            ],
          }),
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
    },
  };
}

type Answer = (req: KubeRequest) => unknown;

/**
 * A fake API server for the reconciler: records every request and answers with the first matching rule
 * (`METHOD path-prefix`), or a plain success. A rule that throws answers with that error.
 */
class FakeApi implements KubeRequester {
  readonly requests: KubeRequest[] = [];
  private readonly rules: [string, Answer][] = [];
  private created = 0;

  on(route: string, answer: Answer): this {
    this.rules.unshift([route, answer]);
    return this;
  }

  async request<T>(req: KubeRequest): Promise<T> {
    this.requests.push(req);
    await Promise.resolve();
    const route = `${req.method ?? 'GET'} ${req.path}`;
    const rule = this.rules.find(([prefix]) => route.startsWith(prefix));
    if (rule) return rule[1](req) as T;
    if (req.method === 'POST' && req.path === PODS_PATH) {
      const body = structuredClone(req.body) as V1Pod;
      const name = `web-new${++this.created}`;
      return {
        ...body,
        metadata: { ...body.metadata, name, uid: `uid-${name}`, resourceVersion: '20' },
      } as T;
    }
    return (req.body ?? {}) as T;
  }

  made(method: string, pathPrefix = ''): KubeRequest[] {
    return this.requests.filter((r) => (r.method ?? 'GET') === method && r.path.startsWith(pathPrefix));
  }
}

const refused = (message: string) =>
  new KubeApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden', message });

function setup(
  options: {
    nginx?: Nginx & KubeObject;
    pods?: (V1Pod & KubeObject)[];
    client?: KubeRequester;
    now?: () => number;
    analysis?: AnalysisMeasurer;
  } = {},
) {
  const api = new FakeApi();
  const nginxes = new Store<Nginx & KubeObject>();
  const pods = new Store<V1Pod & KubeObject>({
    indexers: { [PODS_BY_NGINX]: (p) => [owningNginxKey(p)].filter((k): k is string => Boolean(k)) },
  });
  if (options.nginx !== undefined) nginxes.upsert(nginxes.accept(structuredClone(options.nginx)));
  for (const p of options.pods ?? []) pods.upsert(pods.accept(structuredClone(p)));
  const expectations = new Expectations();
  const strays = new StrayPods();
  const client = options.client ?? api;
  const ownedStore = <T extends KubeObject>() =>
    new Store<T>({ indexers: { [BY_NGINX_LABEL]: byNginxLabel } });
  const owned = {
    revisions: ownedStore<V1ControllerRevision & KubeObject>(),
    configMaps: ownedStore<V1ConfigMap & KubeObject>(),
    services: ownedStore<V1Service & KubeObject>(),
    budgets: ownedStore<V1PodDisruptionBudget & KubeObject>(),
    endpointSlices: ownedStore<V1EndpointSlice & KubeObject>(),
    ingresses: ownedStore<V1Ingress & KubeObject>(),
  };
  // The revision history is there already: these tests are about pods.
  if (options.nginx !== undefined) {
    const history = controllerRevisionFor(options.nginx, podTemplateOf(options.nginx.spec), REVISION, 1);
    owned.revisions.upsert(
      owned.revisions.accept({
        ...history,
        metadata: { ...history.metadata, resourceVersion: '1' },
      } as V1ControllerRevision & KubeObject),
    );
  }
  const events = new EventRecorder({ client, component: 'test', instance: 'test-1' });
  const reconciler = new NginxReconciler({
    client,
    nginxes,
    pods,
    owned,
    expectations,
    strays,
    events,
    logger: { info() {}, warn() {}, error() {} },
    burst: 500,
    now: options.now,
    ...(options.analysis ? { analysis: options.analysis } : {}),
  });
  return { api, nginxes, pods, expectations, strays, reconciler, events };
}

const statusWrites = (api: FakeApi) => api.made('PUT', `${NGINX_PATH}/status`);
const podCreates = (api: FakeApi) => api.made('POST', PODS_PATH);

describe('NginxReconciler', () => {
  it('creates the missing pods in slow-start batches, then waits for them to show in the cache', async () => {
    const { api, reconciler, expectations } = setup({ nginx: nginx(7) });
    const report = new ReconcileReport();
    await reconciler.reconcile(KEY, report);
    expect(podCreates(api)).toHaveLength(7);
    expect(podCreates(api).every((r) => r.accept === METADATA_ONLY)).toBe(true);
    expect(report.actions.filter((a) => a.kind === 'create')).toHaveLength(7);
    expect(expectations.satisfied(KEY)).toBe(false);

    // The cache has not seen them yet: a second sync must not create them again.
    await reconciler.reconcile(KEY);
    expect(podCreates(api)).toHaveLength(7);
    for (let i = 0; i < 7; i++) expectations.creationObserved(KEY);
    expect(expectations.satisfied(KEY)).toBe(true);
  });

  it('judges its expectations against pods read after them: one met while it awaits does not count yet', async () => {
    const existing = pod();
    const { api, reconciler, expectations, pods, strays } = setup({ nginx: nginx(2), pods: [existing] });
    // A previous sync created the second pod; the cache has not shown it yet.
    expectations.expectCreations(KEY, 1);
    const stray = pod({ name: 'web-stray' });
    strays.add(KEY, stray);
    // While the reconcile looks at the stray pod, the watch brings the second pod and meets the expectation.
    api.on(`GET ${PODS_PATH}/web-stray`, () => {
      pods.upsert(pods.accept(structuredClone(pod({ name: 'web-second' }))));
      expectations.creationObserved(KEY);
      throw new KubeApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    });
    await reconciler.reconcile(KEY);
    expect(podCreates(api)).toEqual([]);
    // The next sync reads both pods, after the expectation was met: nothing to do either.
    await reconciler.reconcile(KEY);
    expect(podCreates(api)).toEqual([]);
  });

  it('paces a progress status write from the end of a pod burst, however long the burst took', async () => {
    const clock = { now: 0 };
    const { api, reconciler } = setup({ nginx: nginx(7), now: () => clock.now });
    let made = 0;
    api.on(`POST ${PODS_PATH}`, (req) => {
      clock.now += 600; // a busy API server: the burst takes longer than the interval (1 s)
      const body = req.body as V1Pod;
      return { ...body, metadata: { ...body.metadata, name: `web-slow${++made}`, resourceVersion: '20' } };
    });
    expect(await reconciler.reconcile(KEY)).toEqual({ requeueAfterMs: 1000 });
    expect(podCreates(api)).toHaveLength(7);
    expect(statusWrites(api)).toHaveLength(0); // no progress to report yet: 1 s after the last create
    clock.now += 1000;
    await reconciler.reconcile(KEY);
    expect(statusWrites(api)).toHaveLength(1);
    expect(statusWrites(api)[0]!.accept).toBe(METADATA_ONLY);
  });

  it('holds a progress write while pods keep turning ready, and writes once when all are', async () => {
    const clock = { now: 0 };
    const names = ['web-r1', 'web-r2', 'web-r3'];
    const { api, reconciler, pods, nginxes } = setup({
      nginx: nginx(3),
      pods: names.map((name) => pod({ name, ready: false })),
      now: () => clock.now,
    });
    await reconciler.reconcile(KEY);
    expect(statusWrites(api)).toHaveLength(1); // the first status: 0 of 3 ready
    const written = statusWrites(api)[0]!.body as Nginx & KubeObject;
    nginxes.upsert(nginxes.accept({ ...written, metadata: { ...written.metadata, resourceVersion: '11' } }));
    for (const name of names) {
      clock.now += 600; // one turns ready every 600 ms: never still for the 1 s interval
      pods.upsert(pods.accept(pod({ name, ready: true })));
      await reconciler.reconcile(KEY);
    }
    expect(statusWrites(api)).toHaveLength(2);
    expect((statusWrites(api)[1]!.body as Nginx).status).toMatchObject({ replicas: 3, readyReplicas: 3 });
  });

  it('stops slow start at the first refused batch, reports ReplicaFailure, and expects nothing more', async () => {
    const { api, reconciler, expectations } = setup({ nginx: nginx(20) });
    let n = 0;
    api.on(`POST ${PODS_PATH}`, (req) => {
      if (++n > 4) throw refused(`pods "web-x${n}" is forbidden: exceeded quota: pods, limited: pods=4`);
      const body = req.body as V1Pod;
      return { ...body, metadata: { ...body.metadata, name: `web-ok${n}`, resourceVersion: '20' } };
    });
    await expect(reconciler.reconcile(KEY)).rejects.toThrow(ReconcileError);
    // Batches 1, 2, 4: the third batch has one refusal, so no fourth batch of 8 is tried.
    expect(podCreates(api)).toHaveLength(7);
    for (let i = 0; i < 4; i++) expectations.creationObserved(KEY);
    expect(expectations.satisfied(KEY)).toBe(true);
    const [write] = statusWrites(api);
    const status = (write!.body as Nginx).status!;
    expect(status.conditions?.find((c) => c.type === 'ReplicaFailure')).toMatchObject({
      status: 'True',
      reason: 'FailedCreate',
      message: 'pods "web-x5" is forbidden: exceeded quota: pods, limited: pods=4',
    });
  });

  it('keeps the ReplicaFailure message while the refusal repeats, so retries write no status', async () => {
    const failing = nginx(3);
    const { api, reconciler, nginxes } = setup({ nginx: failing });
    let n = 0;
    api.on(`POST ${PODS_PATH}`, () => {
      throw refused(`pods "web-r${++n}" is forbidden: exceeded quota`);
    });
    await expect(reconciler.reconcile(KEY)).rejects.toThrow();
    expect(statusWrites(api)).toHaveLength(1);
    const written = statusWrites(api)[0]!.body as Nginx & KubeObject;
    nginxes.upsert(
      nginxes.accept(
        structuredClone({ ...written, metadata: { ...written.metadata, resourceVersion: '11' } }),
      ),
    );
    await expect(reconciler.reconcile(KEY)).rejects.toThrow(/web-r2/);
    await expect(reconciler.reconcile(KEY)).rejects.toThrow(/web-r3/);
    expect(statusWrites(api)).toHaveLength(1);
    expect(podCreates(api)).toHaveLength(3);
  });

  it('writes its status once more over a fresh read after a conflict, when the spec there is the one it saw', async () => {
    const ready = [pod(), pod()];
    const { api, reconciler } = setup({ nginx: nginx(2), pods: ready });
    const newer = { ...nginx(2), metadata: { ...nginx(2).metadata, resourceVersion: '99' } };
    let puts = 0;
    api.on(`PUT ${NGINX_PATH}/status`, (req) => {
      if ((puts += 1) === 1) throw new KubeApiError(409, { kind: 'Status', code: 409, reason: 'Conflict' });
      return req.body;
    });
    api.on(`GET ${NGINX_PATH}`, () => newer);
    const report = new ReconcileReport();
    expect(await reconciler.reconcile(KEY, report)).toBeUndefined();
    const [, retried] = api.made('PUT', `${NGINX_PATH}/status`);
    expect(retried!.body).toMatchObject({
      metadata: { resourceVersion: '99' },
      status: { readyReplicas: 2 },
    });
    expect(report.actions).toEqual([{ kind: 'status' }]);

    // A spec changed meanwhile (another generation): this status is not for it. Look again, with the backoff.
    const changed = setup({ nginx: nginx(2), pods: ready });
    changed.api.on(`PUT ${NGINX_PATH}/status`, () => {
      throw new KubeApiError(409, { kind: 'Status', code: 409, reason: 'Conflict' });
    });
    changed.api.on(`GET ${NGINX_PATH}`, () => ({ ...newer, metadata: { ...newer.metadata, generation: 9 } }));
    expect(await changed.reconciler.reconcile(KEY)).toEqual({ requeue: true });
    expect(changed.api.made('PUT', `${NGINX_PATH}/status`)).toHaveLength(1);
  });

  it('asks for a rate-limited look again when its status write still meets a conflict, and lets a 404 go', async () => {
    const ready = [pod(), pod()];
    const conflict = setup({ nginx: nginx(2), pods: ready });
    conflict.api.on(`PUT ${NGINX_PATH}/status`, () => {
      throw new KubeApiError(409, { kind: 'Status', code: 409, reason: 'Conflict' });
    });
    conflict.api.on(`GET ${NGINX_PATH}`, () => nginx(2));
    expect(await conflict.reconciler.reconcile(KEY)).toEqual({ requeue: true });
    expect(conflict.api.made('PUT', `${NGINX_PATH}/status`)).toHaveLength(2);

    const gone = setup({ nginx: nginx(2), pods: ready });
    gone.api.on(`PUT ${NGINX_PATH}/status`, () => {
      throw new KubeApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    });
    const report = new ReconcileReport();
    expect(await gone.reconciler.reconcile(KEY, report)).toBeUndefined();
    expect(report.actions).toEqual([]);
  });

  it('adopts an orphan after a fresh read of the Nginx, with a strategic merge patch that cannot overwrite another controller', async () => {
    const orphan = pod({ owner: null });
    const { api, reconciler } = setup({ nginx: nginx(1), pods: [orphan] });
    api.on(`GET ${NGINX_PATH}`, () => nginx(1));
    api.on(`PATCH ${PODS_PATH}/${orphan.metadata!.name}`, () => pod({ name: orphan.metadata!.name }));
    const report = new ReconcileReport();
    await reconciler.reconcile(KEY, report);
    expect(api.made('GET', NGINX_PATH)).toHaveLength(1);
    const [patch] = api.made('PATCH', `${PODS_PATH}/${orphan.metadata!.name}`);
    expect(patch).toMatchObject({
      contentType: 'application/strategic-merge-patch+json',
      body: {
        metadata: {
          uid: orphan.metadata!.uid,
          ownerReferences: [
            { kind: 'Nginx', name: 'web', uid: 'u-web', controller: true, blockOwnerDeletion: true },
          ],
        },
      },
    });
    expect(report.actions).toContainEqual({ kind: 'adopt', pod: orphan.metadata!.name });
    expect(podCreates(api)).toHaveLength(0); // the adopted orphan is the one replica
  });

  it.each([
    [
      'being deleted',
      { ...nginx(1), metadata: { ...nginx(1).metadata, deletionTimestamp: new Date() } },
      /being deleted/,
    ],
    [
      'replaced by a new object',
      { ...nginx(1), metadata: { ...nginx(1).metadata, uid: 'u-new' } },
      /was replaced/,
    ],
  ])(
    'adopts nothing and creates nothing when the fresh read shows the Nginx %s',
    async (_what, fresh, message) => {
      const { api, reconciler } = setup({ nginx: nginx(3), pods: [pod({ owner: null })] });
      api.on(`GET ${NGINX_PATH}`, () => fresh);
      await expect(reconciler.reconcile(KEY)).rejects.toThrow(message);
      expect(api.made('PATCH')).toEqual([]);
      expect(podCreates(api)).toEqual([]);
    },
  );

  it('takes an orphan that vanished before its adoption as nothing, and a refused adoption as a failure', async () => {
    const orphan = pod({ owner: null });
    const vanished = setup({ nginx: nginx(1), pods: [orphan] });
    vanished.api.on(`GET ${NGINX_PATH}`, () => nginx(1));
    vanished.api.on(`PATCH ${PODS_PATH}/`, () => {
      throw new KubeApiError(404, { kind: 'Status', code: 404 });
    });
    await vanished.reconciler.reconcile(KEY);
    expect(podCreates(vanished.api)).toHaveLength(1); // not adopted, so one is created

    const taken = setup({ nginx: nginx(1), pods: [orphan] });
    taken.api.on(`GET ${NGINX_PATH}`, () => nginx(1));
    taken.api.on(`PATCH ${PODS_PATH}/`, () => {
      throw new KubeApiError(422, {
        kind: 'Status',
        code: 422,
        message: 'Only one reference can have Controller set to true',
      });
    });
    await expect(taken.reconciler.reconcile(KEY)).rejects.toThrow(/Only one reference/);
    expect(podCreates(taken.api)).toHaveLength(0);
  });

  it('releases an owned pod that no longer matches the selector with a patch deleting only its own reference', async () => {
    const moved = pod({ labels: { 'mycompany.com/nginx': 'web' } }); // app.kubernetes.io/name removed
    const { api, reconciler } = setup({ nginx: nginx(0), pods: [moved] });
    const report = new ReconcileReport();
    await reconciler.reconcile(KEY, report);
    const [patch] = api.made('PATCH', `${PODS_PATH}/${moved.metadata!.name}`);
    expect(patch).toMatchObject({
      contentType: 'application/strategic-merge-patch+json',
      body: { metadata: { uid: moved.metadata!.uid, ownerReferences: [{ $patch: 'delete', uid: 'u-web' }] } },
    });
    expect(report.actions).toContainEqual({
      kind: 'release',
      pod: moved.metadata!.name,
      reason: 'labels-no-longer-match',
    });
  });

  it('keeps a stray candidate when its GET fails, and releases it on the retry', async () => {
    const relabelled = pod({ labels: {} });
    const { api, reconciler, strays } = setup({ nginx: nginx(0) });
    strays.add(KEY, relabelled);
    api.on(`GET ${PODS_PATH}/${relabelled.metadata!.name}`, () => {
      throw new KubeApiError(503, { kind: 'Status', code: 503, message: 'the API server is restarting' });
    });
    await expect(reconciler.reconcile(KEY)).rejects.toThrow(/restarting/);
    expect(strays.candidates(KEY)).toHaveLength(1);

    api.on(`GET ${PODS_PATH}/${relabelled.metadata!.name}`, () => relabelled);
    await reconciler.reconcile(KEY);
    expect(api.made('PATCH', `${PODS_PATH}/${relabelled.metadata!.name}`)).toHaveLength(1);
    expect(strays.candidates(KEY)).toEqual([]);
  });

  it('deletes surplus pods with a uid precondition, expecting their deletion', async () => {
    const pods = [pod({ ready: false }), pod(), pod()];
    const { api, reconciler, expectations } = setup({ nginx: nginx(2), pods });
    await reconciler.reconcile(KEY);
    const deletes = api.made('DELETE', PODS_PATH);
    expect(deletes.map((d) => d.path)).toEqual([`${PODS_PATH}/${pods[0]!.metadata!.name}`]);
    expect(deletes[0]!.body).toMatchObject({ preconditions: { uid: pods[0]!.metadata!.uid } });
    expect(expectations.satisfied(KEY)).toBe(false);
    // Its answer is read for nothing: the API server need not send the whole pod back.
    expect(deletes[0]!.accept).toBe(METADATA_ONLY);
  });

  it('makes no request once its leadership term has ended, even with a reconcile in flight', async () => {
    const api = new FakeApi();
    const term = new AbortController();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    api.on(`POST ${PODS_PATH}`, async (req) => {
      if (first) {
        first = false;
        await held; // the first create is on the wire when the term ends
      }
      const body = req.body as V1Pod;
      return { ...body, metadata: { ...body.metadata, name: 'web-held', resourceVersion: '30' } };
    });
    const client = new FencedClient(api, term.signal);
    const { reconciler } = setup({ nginx: nginx(50), client });
    const running = reconciler.reconcile(KEY, new ReconcileReport(), term.signal);
    await vi.waitFor(() => expect(api.made('POST')).toHaveLength(1)); // the first create is on the wire
    expect(api.made('POST')).toHaveLength(1);
    term.abort(new LeadershipEnded('stopped'));
    release();
    await expect(running).rejects.toBeInstanceOf(LeadershipEnded);
    expect(await client.settled()).toEqual({ undecided: 0 });
    // The create on the wire finished; no further batch, no status write, no Event after the term ended.
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${PODS_PATH}`]);
  });

  it('forgets a deleted Nginx and skips one being deleted', async () => {
    const { api, reconciler, strays } = setup({});
    strays.add(KEY, pod());
    expect(await reconciler.reconcile(KEY)).toBeUndefined();
    expect(strays.candidates(KEY)).toEqual([]);
    const deleting = setup({
      nginx: { ...nginx(3), metadata: { ...nginx(3).metadata, deletionTimestamp: new Date() } },
    });
    await deleting.reconciler.reconcile(KEY);
    expect(api.requests).toEqual([]);
    expect(deleting.api.requests).toEqual([]);
  });
});

describe('NginxReconciler with spec.tls', () => {
  const SECRET_PATH = '/api/v1/namespaces/default/secrets/web-tls';
  const withTls = () => nginx(2, { spec: { replicas: 2, tls: { secretName: 'web-tls' } } });

  it('creates no pod while the Secret is missing: ReplicaFailure SecretNotFound, looked for again later', async () => {
    const { api, reconciler, events, nginxes } = setup({ nginx: withTls() });
    const warned: string[] = [];
    vi.spyOn(events, 'event').mockImplementation((_object, type, reason) => {
      if (type === 'Warning') warned.push(reason);
    });
    api.on(`GET ${SECRET_PATH}`, () => {
      throw new KubeApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
    });
    const result = await reconciler.reconcile(KEY);
    expect(result).toEqual({ requeueAfterMs: 10_000 });
    expect(warned).toEqual(['SecretNotFound']);
    expect(podCreates(api)).toHaveLength(0);
    expect(api.made('POST', '/api/v1/namespaces/default/configmaps')).toHaveLength(0);
    expect(api.made('GET', SECRET_PATH)[0]!.accept).toBe(METADATA_ONLY);
    const status = (statusWrites(api)[0]!.body as Nginx).status!;
    expect(status.conditions?.find((c) => c.type === 'ReplicaFailure')).toMatchObject({
      status: 'True',
      reason: 'SecretNotFound',
      message:
        'Secret web-tls (spec.tls.secretName) not found in namespace default: no pod is created until it exists.',
    });

    // Looked for again with that status in the cache: no second Warning, no status write, still no pod.
    const written = statusWrites(api)[0]!.body as Nginx & KubeObject;
    nginxes.upsert(
      nginxes.accept(
        structuredClone({ ...written, metadata: { ...written.metadata, resourceVersion: '11' } }),
      ),
    );
    expect(await reconciler.reconcile(KEY)).toEqual({ requeueAfterMs: 10_000 });
    expect(warned).toEqual(['SecretNotFound']);
    expect(statusWrites(api)).toHaveLength(1);
    expect(podCreates(api)).toHaveLength(0);
  });

  it('creates the pods, mounting the Secret, once it exists', async () => {
    const { api, reconciler } = setup({ nginx: withTls() });
    api.on(`GET ${SECRET_PATH}`, () => ({ metadata: { name: 'web-tls' } }));
    await reconciler.reconcile(KEY);
    const created = podCreates(api).map((req) => req.body as V1Pod);
    expect(created).toHaveLength(2);
    expect(created[0]!.spec!.volumes).toContainEqual(
      expect.objectContaining({
        secret: expect.objectContaining({ secretName: 'web-tls', optional: false }),
      }),
    );
  });

  it('notices a Secret deleted under running pods at its steady recheck, leaves the pods, and clears once it is back', async () => {
    const clock = { now: 0 };
    const revision = revisionOf(podTemplateOf(withTls().spec));
    const running = [1, 2].map(() => pod({ labels: { ...podSelector('web'), [LABEL_REVISION]: revision } }));
    const { api, reconciler, events, nginxes } = setup({
      nginx: withTls(),
      pods: running,
      now: () => clock.now,
    });
    const warned: string[] = [];
    vi.spyOn(events, 'event').mockImplementation((_object, type, reason) => {
      if (type === 'Warning') warned.push(reason);
    });
    let present = true;
    api.on(`GET ${SECRET_PATH}`, () => {
      if (present) return { metadata: { name: 'web-tls' } };
      throw new KubeApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' });
    });
    let version = 10;
    const acceptLastStatus = () => {
      const written = statusWrites(api).at(-1)!.body as Nginx & KubeObject;
      const metadata = { ...written.metadata, resourceVersion: String(++version) };
      nginxes.upsert(nginxes.accept(structuredClone({ ...written, metadata })));
    };
    const looks = () => api.made('GET', SECRET_PATH).length;
    const failure = () =>
      (statusWrites(api).at(-1)!.body as Nginx).status!.conditions?.find((c) => c.type === 'ReplicaFailure');

    // Settled with the Secret there: one look, and the next sync due within the period.
    const first = await reconciler.reconcile(KEY);
    expect(looks()).toBe(1);
    expect(first).toEqual({ requeueAfterMs: expect.any(Number) });
    expect(first && 'requeueAfterMs' in first && first.requeueAfterMs).toBeLessThanOrEqual(60_000);
    acceptLastStatus();
    clock.now = 30_000;
    expect(await reconciler.reconcile(KEY)).toEqual({ requeueAfterMs: 30_000 });
    expect(looks()).toBe(1);

    // Deleted: noticed at the next look; the pods stay, the status says they keep their certificate.
    present = false;
    clock.now = 60_000;
    expect(await reconciler.reconcile(KEY)).toEqual({ requeueAfterMs: 10_000 });
    expect(looks()).toBe(2);
    expect(warned).toEqual(['SecretNotFound']);
    expect(failure()).toMatchObject({
      status: 'True',
      reason: 'SecretNotFound',
      message:
        'Secret web-tls (spec.tls.secretName) not found in namespace default: the 2 running pods keep the ' +
        'certificate they mounted; no new pod is created until it exists.',
    });
    expect(api.made('DELETE')).toHaveLength(0);
    expect(podCreates(api)).toHaveLength(0);

    // Still missing: looked for on every sync, no second Warning, nothing written.
    acceptLastStatus();
    const writes = statusWrites(api).length;
    clock.now = 70_000;
    expect(await reconciler.reconcile(KEY)).toEqual({ requeueAfterMs: 10_000 });
    expect(looks()).toBe(3);
    expect(warned).toEqual(['SecretNotFound']);
    expect(statusWrites(api)).toHaveLength(writes);

    // Back: the condition clears on the next sync.
    present = true;
    clock.now = 80_000;
    await reconciler.reconcile(KEY);
    expect(looks()).toBe(4);
    expect(failure()).toBeUndefined();
    expect(api.made('DELETE')).toHaveLength(0);
    expect(podCreates(api)).toHaveLength(0);
  });

  it('fails the sync (with backoff) when the Secret cannot be read', async () => {
    const { api, reconciler } = setup({ nginx: withTls() });
    api.on(`GET ${SECRET_PATH}`, () => {
      throw refused('secrets "web-tls" is forbidden');
    });
    await expect(reconciler.reconcile(KEY)).rejects.toThrow(ReconcileError);
    expect(podCreates(api)).toHaveLength(0);
  });
});

describe('NginxReconciler, strategy Canary', () => {
  const spec: Nginx['spec'] = {
    replicas: 2,
    image: 'nginx:1.28',
    analysis: [
      {
        name: 'errors',
        prometheus: { address: 'http://p:9090', query: 'q' },
        successCondition: 'result < 1',
      },
    ],
    strategy: {
      type: 'Canary',
      canary: { steps: [{ setWeight: 50 }, { analysis: { templateName: 'errors' } }] },
    },
  };
  const UPDATE = revisionOf(podTemplateOf(spec));
  const atAnalysis = () =>
    nginx(2, {
      spec,
      status: {
        currentRevision: REVISION,
        updateRevision: UPDATE,
        canary: {
          revision: UPDATE,
          step: 1,
          weight: 50,
          phase: 'Progressing',
          stepStartedAt: '2026-11-23T10:00:00Z',
        },
      },
    });
  const pods = () => [pod(), pod({ labels: { ...podSelector('web'), [LABEL_REVISION]: UPDATE } })];
  const writtenCanary = (api: FakeApi) =>
    (statusWrites(api).at(-1)?.body as Nginx | undefined)?.status?.canary;

  it('takes a due measurement through its measurer and acts on the verdict in the same sync', async () => {
    const measure = vi.fn(async () => ({
      at: '2026-11-23T10:00:01Z',
      query: 'q',
      value: 0,
      phase: 'Successful' as const,
    }));
    const { api, reconciler } = setup({
      nginx: atAnalysis(),
      pods: pods(),
      analysis: { measure },
      now: () => Date.parse('2026-11-23T10:00:01Z'),
    });
    await reconciler.reconcile(KEY);
    expect(measure).toHaveBeenCalledOnce();
    expect(measure.mock.calls[0]?.slice(0, 2)).toMatchObject([
      spec.analysis![0],
      { namespace: 'default', name: 'web', revision: UPDATE },
    ]);
    const canary = writtenCanary(api);
    expect(canary).toMatchObject({ step: 2, weight: 100, phase: 'Progressing' });
    expect(canary?.analysisRuns).toEqual([
      expect.objectContaining({
        name: `${UPDATE}-1-errors`,
        phase: 'Successful',
        measurements: [expect.objectContaining({ value: 0 })],
      }),
    ]);
    // Past the last step: the stable pod makes room for a second canary one (surge first).
    expect(podCreates(api)).toHaveLength(1);
    expect((podCreates(api)[0]!.body as V1Pod).metadata?.labels?.[LABEL_REVISION]).toBe(UPDATE);
  });

  it('without a measurer, the run is Inconclusive and the canary Paused, saying so', async () => {
    const { api, reconciler } = setup({
      nginx: atAnalysis(),
      pods: pods(),
      now: () => Date.parse('2026-11-23T10:00:01Z'),
    });
    await reconciler.reconcile(KEY);
    const canary = writtenCanary(api);
    expect(canary).toMatchObject({ step: 1, phase: 'Paused' });
    expect(canary?.message).toContain('no analysis provider');
    expect(podCreates(api)).toHaveLength(0);
  });

  it('creates stable pods from the stable revision when aborted', async () => {
    const aborted = atAnalysis();
    aborted.metadata.annotations = { 'mycompany.com/abort': UPDATE };
    const { api, reconciler } = setup({
      nginx: aborted,
      pods: pods(),
      now: () => Date.parse('2026-11-23T10:00:01Z'),
    });
    await reconciler.reconcile(KEY);
    expect(writtenCanary(api)).toMatchObject({ phase: 'Aborted', weight: 0 });
    expect(api.made('DELETE', PODS_PATH)).toHaveLength(1);
    expect(podCreates(api)).toHaveLength(1);
    expect((podCreates(api)[0]!.body as V1Pod).metadata?.labels?.[LABEL_REVISION]).toBe(REVISION);
  });
});

describe('NginxReconciler, rollbackOnFailure', () => {
  it('while its status says RolledBack for this generation, sends a rolling update back to the stable revision', async () => {
    const spec: Nginx['spec'] = { replicas: 2, image: 'nginx:1.28', rollbackOnFailure: true };
    const update = revisionOf(podTemplateOf(spec));
    const rolledBack = nginx(2, {
      spec,
      status: {
        currentRevision: REVISION,
        updateRevision: update,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'RolledBack',
            message: `Rolled back to ${REVISION}: no progress for 600 s rolling out ${update}. 1 of 2 pods ready.`,
            observedGeneration: 1,
            lastTransitionTime: '2026-11-23T10:00:00Z',
          },
        ],
      },
    });
    const fresh = pod({ labels: { ...podSelector('web'), [LABEL_REVISION]: update }, ready: false });
    const { api, reconciler } = setup({ nginx: rolledBack, pods: [pod(), fresh] });
    await reconciler.reconcile(KEY).catch(() => {});
    expect(api.made('DELETE', PODS_PATH).map((r) => r.path)).toEqual([
      `${PODS_PATH}/${fresh.metadata!.name}`,
    ]);
    expect(podCreates(api)).toHaveLength(1);
    expect((podCreates(api)[0]!.body as V1Pod).metadata?.labels?.[LABEL_REVISION]).toBe(REVISION);
    // The spec is never written; the status keeps saying why.
    expect(api.made('PATCH', NGINX_PATH)).toEqual([]);
    expect(api.made('PUT', NGINX_PATH).filter((r) => !r.path.endsWith('/status'))).toEqual([]);
  });

  it('a new generation ends it: the rollout goes on', async () => {
    const spec: Nginx['spec'] = { replicas: 1, image: 'nginx:1.28', rollbackOnFailure: true };
    const update = revisionOf(podTemplateOf(spec));
    const changed = nginx(1, {
      spec,
      status: {
        currentRevision: REVISION,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'RolledBack',
            message: 'Rolled back',
            observedGeneration: 0,
            lastTransitionTime: '2026-11-23T10:00:00Z',
          },
        ],
      },
    });
    const { api, reconciler } = setup({ nginx: changed, pods: [pod()] });
    await reconciler.reconcile(KEY);
    expect((podCreates(api)[0]!.body as V1Pod).metadata?.labels?.[LABEL_REVISION]).toBe(update);
  });
});
