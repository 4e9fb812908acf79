// The Service, PodDisruptionBudget and Ingress an Nginx owns are kept by server-side apply (field manager
// nginx-control-plane) on the local cluster: a field the spec owns, changed by hand under another field manager,
// is restored; labels, annotations and fields other managers added are kept; a field the spec no longer sets is
// removed; a forced apply by another manager of a field we own is taken back, while that manager keeps the fields
// we never set; an object an earlier version created and merge-patched (our manager, operation Update) is adopted
// so that fields it held and the spec dropped go too.
import type {
  V1Ingress,
  V1ManagedFieldsEntry,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownedLabels } from '../apps/api/src/controller/owned-objects.js';
import { controllerReference } from '../apps/api/src/controller/pod-builder.js';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { createNamespace, nginxesIn } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const MERGE_PATCH = 'application/merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';
const OURS = 'nginx-control-plane';

/** The managedFields entries of `manager` (with `operation`). */
const entriesOf = (object: { metadata?: { managedFields?: V1ManagedFieldsEntry[] } }, manager: string) =>
  (object.metadata?.managedFields ?? []).filter((entry) => entry.manager === manager);

describe('owned objects by server-side apply', () => {
  let controller: AppProcess;
  let namespace: string;
  const nginxPath = (name = '') =>
    `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes${name && `/${name}`}`;
  const servicePath = (name = '') => `/api/v1/namespaces/${namespace}/services${name && `/${name}`}`;
  const budgetPath = (name: string) => `/apis/policy/v1/namespaces/${namespace}/poddisruptionbudgets/${name}`;
  const ingressPath = (name: string) =>
    `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${name}`;
  const get = <T>(path: string) => client.request<T>({ path });
  const createNginx = (name: string, spec: Nginx['spec']) =>
    client.request<Nginx>({
      method: 'POST',
      path: nginxPath(),
      body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
    });
  const patchSpec = (name: string, spec: Record<string, unknown>) =>
    client.request({ method: 'PATCH', path: nginxPath(name), contentType: MERGE_PATCH, body: { spec } });
  /** A change by hand, as `kubectl patch --type merge` makes it, under field manager `manager`. */
  const mergePatch = (path: string, body: object, manager = 'kubectl-patch') =>
    client.request({
      method: 'PATCH',
      path,
      contentType: MERGE_PATCH,
      query: { fieldManager: manager },
      body,
    });
  const apply = (path: string, body: object, manager: string, force: boolean) =>
    client.request({
      method: 'PATCH',
      path,
      contentType: APPLY_PATCH,
      query: { fieldManager: manager, ...(force ? { force: true } : {}) },
      body,
    });

  beforeAll(async () => {
    namespace = await createNamespace(client, 'owned-apply', cleanups);
    controller = await startApp({ ...HEADLESS, LEADER_ELECTION: 'false', WATCH_NAMESPACE: namespace });
  });
  afterAll(async () => {
    await controller?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    client.close();
  });

  it('restores a Service field it owns changed by hand, and keeps what other managers added', async () => {
    const name = uniqueName('svc');
    await createNginx(name, { replicas: 0, port: 8080, service: {} });
    const created = await waitFor('the Service', async () =>
      get<V1Service>(servicePath(name)).catch(() => undefined),
    );
    expect(created.spec!.ports).toMatchObject([{ name: 'http', port: 80, targetPort: 8080 }]);
    expect(entriesOf(created, OURS).map((entry) => entry.operation)).toEqual(['Apply']);

    // By hand: the target port changed (a field we own), a label and an annotation added (ones we never set).
    await mergePatch(servicePath(name), {
      metadata: { labels: { team: 'web' }, annotations: { 'example.com/note': 'by hand' } },
      spec: { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 9999 }] },
    });
    const restored = await waitFor('the target port restored', async () => {
      const service = await get<V1Service>(servicePath(name));
      return service.spec!.ports?.[0]?.targetPort === 8080 && service;
    });
    expect(restored.metadata!.labels).toMatchObject({
      ...ownedLabels({ metadata: { name } } as Nginx),
      team: 'web',
    });
    expect(restored.metadata!.annotations).toMatchObject({ 'example.com/note': 'by hand' });

    // Another manager applies, forced, a label we never set and the target port we own: the port is taken back,
    // the label stays, and so does that manager's ownership of it.
    await apply(
      servicePath(name),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, labels: { owner: 'other' } },
        spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 7777 }] },
      },
      'other-applier',
      true,
    );
    const forced = await waitFor('the forced target port taken back', async () => {
      const service = await get<V1Service>(servicePath(name));
      return service.spec!.ports?.[0]?.targetPort === 8080 && service;
    });
    expect(forced.metadata!.labels).toMatchObject({ owner: 'other', team: 'web' });
    const other = entriesOf(forced, 'other-applier');
    expect(other).toHaveLength(1);
    expect(JSON.stringify(other[0]!.fieldsV1)).toContain('"f:owner"');
    expect(JSON.stringify(other[0]!.fieldsV1)).not.toContain('"f:targetPort"');
    expect(JSON.stringify(entriesOf(forced, OURS)[0]!.fieldsV1)).toContain('"f:targetPort"');
    // A spec change applies again: what the others added is still there.
    await patchSpec(name, { port: 8081 });
    const moved = await waitFor('the new target port', async () => {
      const service = await get<V1Service>(servicePath(name));
      return service.spec!.ports?.[0]?.targetPort === 8081 && service;
    });
    expect(moved.metadata!.labels).toMatchObject({ owner: 'other', team: 'web' });
    expect(moved.metadata!.annotations).toMatchObject({ 'example.com/note': 'by hand' });
  }, 120_000);

  it('removes from the budget and the Ingress the fields the spec no longer sets, keeping what others added', async () => {
    const name = uniqueName('drop');
    await createNginx(name, {
      replicas: 0,
      service: {},
      disruptionBudget: { minAvailable: 1 },
      ingress: { host: 'shop.example.com', className: 'nginx' },
    });
    await waitFor('the budget', async () =>
      get<V1PodDisruptionBudget>(budgetPath(name)).catch(() => undefined),
    );
    const ingress = await waitFor('the Ingress', async () =>
      get<V1Ingress>(ingressPath(name)).catch(() => undefined),
    );
    expect(ingress.spec!.ingressClassName).toBe('nginx');
    await mergePatch(ingressPath(name), {
      metadata: { annotations: { 'example.com/owner': 'team-a' } },
      spec: { defaultBackend: { service: { name, port: { number: 80 } } } },
    });
    await mergePatch(budgetPath(name), { metadata: { labels: { team: 'web' } } });

    await patchSpec(name, {
      disruptionBudget: { minAvailable: null, maxUnavailable: 1 },
      ingress: { className: null },
    });
    const budget = await waitFor('the budget bound switched', async () => {
      const current = await get<V1PodDisruptionBudget>(budgetPath(name));
      return current.spec!.maxUnavailable === 1 && current;
    });
    expect(budget.spec!.minAvailable).toBeUndefined();
    expect(budget.metadata!.labels).toMatchObject({ team: 'web' });
    const classless = await waitFor('the Ingress class removed', async () => {
      const current = await get<V1Ingress>(ingressPath(name));
      return current.spec!.ingressClassName === undefined && current;
    });
    expect(classless.spec!.rules![0]!.host).toBe('shop.example.com');
    expect(classless.metadata!.annotations).toMatchObject({ 'example.com/owner': 'team-a' });
    expect(classless.spec!.defaultBackend).toEqual({ service: { name, port: { number: 80 } } });

    // A rule changed by hand is restored (rules is an atomic list: the hand change took it over whole).
    await mergePatch(ingressPath(name), { spec: { rules: [{ host: 'drift.example.com' }] } });
    await waitFor('the rule restored', async () => {
      const current = await get<V1Ingress>(ingressPath(name));
      return (
        current.spec!.rules?.[0]?.host === 'shop.example.com' && current.spec!.rules[0]!.http !== undefined
      );
    });
  }, 120_000);

  it('adopts a Service an earlier version created and merge-patched, removing what the spec no longer sets', async () => {
    const name = uniqueName('legacy');
    const nginx = await createNginx(name, { replicas: 0 });
    // What an earlier version left: created under our manager name with operation Update, with a port (as if
    // spec.tls had been set) that the spec does not ask for any more.
    await client.request({
      method: 'POST',
      path: servicePath(),
      query: { fieldManager: OURS },
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name,
          labels: ownedLabels(nginx),
          ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
        },
        spec: {
          type: 'ClusterIP',
          selector: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': name },
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 80 },
            { name: 'https', protocol: 'TCP', port: 443, targetPort: 443 },
          ],
        },
      },
    });
    await patchSpec(name, { service: {} });
    const adopted = await waitFor('the https port removed', async () => {
      const service = await get<V1Service>(servicePath(name));
      return service.spec!.ports?.length === 1 && service;
    });
    expect(adopted.spec!.ports![0]).toMatchObject({ name: 'http', port: 80 });
    expect(entriesOf(adopted, OURS).map((entry) => entry.operation)).toEqual(['Apply']);
    expect((await nginxesIn(client, namespace).get(name)).metadata?.name).toBe(name);
  }, 120_000);
});
