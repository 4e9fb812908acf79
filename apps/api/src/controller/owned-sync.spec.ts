import type { V1Service } from '@kubernetes/client-node';
import {
  EventRecorder,
  KubeApiError,
  type KubeObject,
  type KubeRequest,
  type KubeRequester,
  Store,
} from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { BY_NGINX_LABEL, byNginxLabel } from '../kube/pod-index.js';
import { serviceFor } from './owned-objects.js';
import { OwnedSync, type OwnedCaches } from './owned-sync.js';
import { ReconcileReport } from './reconcile-report.js';
import { APPLY_PATCH, FIELD_MANAGER } from './server-side-apply.js';
import type { SyncContext } from './sync-context.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web', generation: 1 },
  spec: { replicas: 0, service: {} },
};

/** Answers each request from `answer` (by method), keeping every request made. */
class ScriptedApi implements KubeRequester {
  readonly requests: KubeRequest[] = [];
  constructor(private readonly answer: (req: KubeRequest) => unknown) {}
  async request<T>(req: KubeRequest): Promise<T> {
    this.requests.push(req);
    const answer = this.answer(req);
    if (answer instanceof Error) throw answer;
    return answer as T;
  }
}

const notFound = new KubeApiError(404, {
  kind: 'Status',
  code: 404,
  reason: 'NotFound',
  message: 'not found',
});

/** The Service's lists that are maps (by these keys) and its atomic maps, as the API server tracks them. */
const LIST_KEYS: Record<string, string[]> = {
  '.metadata.ownerReferences': ['uid'],
  '.spec.ports': ['port', 'protocol'],
};
const ATOMIC = new Set(['.spec.selector']);

/** The fieldsV1 an apply of `value` leaves (what identifies the object, at the top, is not tracked). */
function fieldsOf(value: unknown, path = ''): object {
  if (Array.isArray(value)) {
    const keys = LIST_KEYS[path];
    if (!keys) return {};
    return Object.fromEntries(
      value.map((item: Record<string, unknown>) => [
        `k:${JSON.stringify(Object.fromEntries(keys.map((key) => [key, item[key]])))}`,
        { '.': {}, ...fieldsOf(item, path) },
      ]),
    );
  }
  if (typeof value !== 'object' || value === null || ATOMIC.has(path)) return {};
  const untracked = new Set(
    ['', '.metadata'].includes(path) ? ['apiVersion', 'kind', 'name', 'namespace'] : [],
  );
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !untracked.has(key))
      .map(([key, field]) => [`f:${key}`, fieldsOf(field, `${path}.${key}`)]),
  );
}

/** The Service as the API server answers an apply of it: our Apply entry and resourceVersion `rv`. */
function served(rv: string): V1Service & KubeObject {
  const service = serviceFor(nginx)!;
  const managedFields = [
    { manager: FIELD_MANAGER, operation: 'Apply', apiVersion: 'v1', fieldsV1: fieldsOf(service) },
  ];
  return { ...service, metadata: { ...service.metadata, resourceVersion: rv, managedFields } } as V1Service &
    KubeObject;
}

function setup(api: ScriptedApi, cached?: V1Service & KubeObject) {
  const store = <T extends KubeObject>() => new Store<T>({ indexers: { [BY_NGINX_LABEL]: byNginxLabel } });
  const caches = {
    revisions: store(),
    configMaps: store(),
    services: store(),
    budgets: store(),
    endpointSlices: store(),
    ingresses: store(),
  } as unknown as OwnedCaches;
  const services = caches.services as unknown as Store<KubeObject>;
  if (cached) services.upsert(services.accept(structuredClone(cached)));
  const events = new EventRecorder({ client: api, component: 'test', instance: 'test-1' });
  const sync = new OwnedSync({ client: api, caches, events });
  const report = new ReconcileReport();
  // The service alone: no revision to record (runnable false), no budget, no Ingress.
  const context = {
    key: 'default/web',
    nginx,
    pods: [],
    view: { updateRevision: 'r1', template: {}, invalid: 'not runnable here', now: 0 },
    report,
    signal: new AbortController().signal,
  } as unknown as SyncContext;
  return { run: () => sync.sync(context), report };
}

const writes = (api: ScriptedApi) => api.requests.filter((req) => (req.method ?? 'GET') !== 'GET');

describe('OwnedSync by server-side apply', () => {
  it('looks up a Service missing from the cache, then creates it by a forced apply as our field manager', async () => {
    const api = new ScriptedApi((req) => ((req.method ?? 'GET') === 'GET' ? notFound : served('5')));
    const { run, report } = setup(api);
    const status = await run();
    expect(api.requests.map((req) => req.method ?? 'GET')).toEqual(['GET', 'PATCH']);
    expect(api.requests[1]).toMatchObject({
      contentType: APPLY_PATCH,
      query: { fieldManager: FIELD_MANAGER, force: true },
      body: serviceFor(nginx),
    });
    expect(report.actions).toEqual([{ kind: 'service', object: 'web', reason: 'created' }]);
    expect(status.service?.name).toBe('web');
  });

  it('sends nothing when the cache shows what we declare, managed by us', async () => {
    const api = new ScriptedApi(() => new Error('no request expected'));
    const { run, report } = setup(api, served('5'));
    await run();
    expect(writes(api)).toEqual([]);
    expect(report.actions).toEqual([]);
  });

  it('applies a drifted field, and records the apply only when it changed the object', async () => {
    const drifted = served('5');
    drifted.spec!.ports![0]!.targetPort = 9999;
    const unchanged = new ScriptedApi(() => served('5'));
    const first = setup(unchanged, drifted);
    await first.run();
    expect(writes(unchanged)).toHaveLength(1);
    expect(first.report.actions).toEqual([]);
    const changed = new ScriptedApi(() => served('6'));
    const second = setup(changed, drifted);
    await second.run();
    expect(second.report.actions).toEqual([{ kind: 'service', object: 'web', reason: 'updated' }]);
  });

  it('refuses a namesake it does not control, found by the lookup', async () => {
    const foreign = { ...served('5'), metadata: { ...served('5').metadata, ownerReferences: [] } };
    const api = new ScriptedApi((req) => ((req.method ?? 'GET') === 'GET' ? foreign : {}));
    const { run } = setup(api);
    await expect(run()).rejects.toThrow('Service web exists and is not controlled by this Nginx');
    expect(api.requests.filter((req) => req.method === 'PATCH')).toEqual([]);
  });
});
