// Runs alone: applies the shipped manifests, whose ClusterRoles and admission webhook are cluster-wide.
// The RBAC in deploy/ gives each role what it needs and no more. deploy/app's service accounts and RBAC are applied
// to the local cluster for real (not a dry run), `kubectl auth can-i --as=system:serviceaccount:…` answers a table
// of may and may-not rows per role, and the built app runs in both roles, each signed in as its own service account:
// the controller manages an Nginx end to end (create, scale down, adopt, status, Events, Lease, TLS and Ingress,
// the admission webhook's registration), the API relays REST writes and serves what the UI reads, and neither is
// ever refused a request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CoreV1Event, V1Lease, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { kubectl, kubectlWith } from './support/kubectl.js';
import { nginxesIn } from './support/operations.js';
import { ROOT } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { canI, serviceAccountKubeconfig } from './support/service-account.js';
import { uniqueName, waitFor } from './support/wait.js';

const CONTROL_PLANE_NAMESPACE = 'nginx-control-plane';
const ROLES = {
  controller: 'nginx-control-plane-controller',
  api: 'nginx-control-plane-api',
} as const;
type RoleName = keyof typeof ROLES;
const subject = (role: RoleName) => `system:serviceaccount:${CONTROL_PLANE_NAMESPACE}:${ROLES[role]}`;
const DEPLOY = join(ROOT, 'deploy');
const CRD_FILE = join(DEPLOY, 'crd/nginxes.mycompany.com.yaml');
const WEBHOOK = 'nginxes.mycompany.com';

/**
 * deploy/app rendered by kustomize, without the workloads and Services (this test runs the app itself), as one file
 * to apply: the two service accounts and their RBAC.
 */
async function rbacManifests(): Promise<string> {
  const docs = parseAllDocuments(await kubectl('kustomize', join(DEPLOY, 'app'))).filter(
    (doc) => !['Deployment', 'Service', 'PodDisruptionBudget'].includes(String(doc.get('kind'))),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'ngx-deploy-')), 'app.yaml');
  writeFileSync(file, docs.map((doc) => doc.toString()).join('---\n'));
  return file;
}

const namespace = uniqueName('rbac');
const EDITOR_TOKEN = 'rbac-editor-token-0123456789';
const name = uniqueName('web');
const client = runtimeClient();
const nginxes = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
const podsPath = `/api/v1/namespaces/${namespace}/pods`;
const leasePath = `/apis/coordination.k8s.io/v1/namespaces/${CONTROL_PLANE_NAMESPACE}/leases/nginx-controller`;

/** The test's Nginx (`name`) in its namespace, and its pods, through the shared Nginx operations. */
const ours = nginxesIn(client, namespace);
const podsOf = () => ours.pods(name);
const getNginx = () => ours.get(name);
const scale = (replicas: number) => ours.scale(name, replicas);
const converged = (count: number, timeoutMs?: number) => ours.converged(name, count, timeoutMs);
const eventsAboutNginx = async () => ours.events((await getNginx()).metadata.uid!);

/**
 * Fails when an Event about the Nginx came from another process than `instance` (this test's controller: its Lease
 * identity is its Events' reportingInstance). Another controller on the cluster, such as a concurrent test run's,
 * would act on this Nginx too, and what happened would no longer prove anything about the service account.
 */
function expectOnlyFrom(instance: string, events: CoreV1Event[]) {
  const others = events
    .filter((e) => e.reportingInstance !== instance)
    .map((e) => `${e.reportingInstance}: ${e.reason} ${e.message}`);
  expect(
    others,
    'another controller also reconciles this cluster; rerun when this test has it alone',
  ).toEqual([]);
}

/** Collects every watch event of one pod, from before it exists, so a short-lived state is not missed. */
async function watchPod(podName: string) {
  const seen: V1Pod[] = [];
  const abort = new AbortController();
  const response = await client.stream({
    path: podsPath,
    query: { watch: true, fieldSelector: `metadata.name=${podName}`, allowWatchBookmarks: false },
    signal: abort.signal,
  });
  let buffer = '';
  response.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) seen.push((JSON.parse(line) as { object: V1Pod }).object);
    }
  });
  response.on('error', () => {});
  return { seen, stop: () => abort.abort() };
}

/** `kubectl auth can-i` rows; those without a namespace are asked about the test's, where no Role binds them. */
function rows(table: string[][]) {
  return table.map((args) => {
    const scoped = args.includes('-n') || args.includes('--all-namespaces');
    return [args.join(' '), scoped ? args : [...args, '-n', namespace]] as const;
  });
}

/**
 * Lines of a process's output where the API server refused one of its requests for lack of rights: RBAC's denials
 * (which name the user) and any refusal about this test's namespace. The controller reconciles every namespace,
 * so on a shared cluster it also meets other tests' Nginxes, some refused by their own ResourceQuota on purpose
 * (403 "exceeded quota"): those say nothing about its role.
 */
function refusals(output: string, role: RoleName): string[] {
  return output
    .split('\n')
    .filter((line) => /forbidden|\b403\b(?![.:\dZ])/i.test(line))
    .filter(
      (line) =>
        line.includes(subject(role)) ||
        / cannot [a-z]+ resource /.test(line) ||
        /HTTP 403/.test(line) ||
        line.includes(namespace),
    );
}

/** What each role may do: the controller reconciles and registers the webhook, and knows nothing about identity. */
const MAY: Record<RoleName, string[][]> = {
  controller: [
    ['get', 'nginxes.mycompany.com'],
    ['list', 'nginxes.mycompany.com', '--all-namespaces'],
    ['watch', 'nginxes.mycompany.com', '--all-namespaces'],
    ['get', 'nginxes.mycompany.com', '--subresource=status'],
    ['update', 'nginxes.mycompany.com', '--subresource=status'],
    ['patch', 'nginxes.mycompany.com', '--subresource=status'],
    // blockOwnerDeletion on the pods' owner reference, where OwnerReferencesPermissionEnforcement runs.
    ['update', 'nginxes.mycompany.com', '--subresource=finalizers'],
    ['get', 'pods'],
    ['list', 'pods', '--all-namespaces'],
    ['watch', 'pods', '--all-namespaces'],
    ['create', 'pods'],
    ['delete', 'pods'],
    ['patch', 'pods'],
    ['list', 'resourcequotas', '--all-namespaces'],
    ['watch', 'resourcequotas', '--all-namespaces'],
    ['create', 'configmaps'],
    ['delete', 'configmaps'],
    ['watch', 'configmaps', '--all-namespaces'],
    ['list', 'controllerrevisions.apps', '--all-namespaces'],
    ['create', 'controllerrevisions.apps'],
    ['patch', 'controllerrevisions.apps'],
    ['delete', 'controllerrevisions.apps'],
    ['watch', 'services', '--all-namespaces'],
    // The owned objects are applied; one missing from the cache is read first (a namesake is never taken over).
    ['get', 'services'],
    ['create', 'services'],
    ['patch', 'services'],
    ['delete', 'services'],
    ['watch', 'poddisruptionbudgets.policy', '--all-namespaces'],
    ['get', 'poddisruptionbudgets.policy'],
    ['create', 'poddisruptionbudgets.policy'],
    ['patch', 'poddisruptionbudgets.policy'],
    ['watch', 'endpointslices.discovery.k8s.io', '--all-namespaces'],
    ['watch', 'ingresses.networking.k8s.io', '--all-namespaces'],
    ['get', 'ingresses.networking.k8s.io'],
    ['create', 'ingresses.networking.k8s.io'],
    ['patch', 'ingresses.networking.k8s.io'],
    ['delete', 'ingresses.networking.k8s.io'],
    // A canary's HTTPRoute: read by the name an Nginx gives, written by server-side apply; ReferenceGrants listed.
    ['get', 'httproutes.gateway.networking.k8s.io'],
    ['patch', 'httproutes.gateway.networking.k8s.io'],
    ['list', 'referencegrants.gateway.networking.k8s.io'],
    // spec.tls: the Secret's metadata is read by name before pods that mount it are created.
    ['get', 'secrets'],
    ['create', 'events'],
    ['patch', 'events'],
    // kube-apiserver's audit losses, read by the leader.
    ['get', '/metrics'],
    ['create', 'leases.coordination.k8s.io', '-n', CONTROL_PLANE_NAMESPACE],
    ['get', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
    ['update', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
    // The admission webhook's registration (server-side apply), of its own configuration only.
    ['create', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
    ['patch', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
  ],
  api: [
    ['get', 'nginxes.mycompany.com'],
    ['list', 'nginxes.mycompany.com', '--all-namespaces'],
    ['watch', 'nginxes.mycompany.com', '--all-namespaces'],
    // The REST API relays writes to Nginx objects with the API's identity (our roles), or as the caller.
    ['create', 'nginxes.mycompany.com'],
    ['update', 'nginxes.mycompany.com'],
    ['patch', 'nginxes.mycompany.com'],
    ['delete', 'nginxes.mycompany.com'],
    ['deletecollection', 'nginxes.mycompany.com'],
    ['get', 'nginxes.mycompany.com', '--subresource=status'],
    ['update', 'nginxes.mycompany.com', '--subresource=status'],
    ['patch', 'nginxes.mycompany.com', '--subresource=status'],
    ['get', 'nginxes.mycompany.com', '--subresource=scale'],
    ['update', 'nginxes.mycompany.com', '--subresource=scale'],
    ['patch', 'nginxes.mycompany.com', '--subresource=scale'],
    // What the UI shows: pods (live), revisions, Events (and the timeline's evidence).
    ['get', 'pods'],
    ['list', 'pods', '--all-namespaces'],
    ['watch', 'pods', '--all-namespaces'],
    ['list', 'controllerrevisions.apps'],
    ['list', 'events'],
    ['watch', 'events', '--all-namespaces'],
    ['create', 'events'],
    ['patch', 'events'],
    // Who a caller is (ServiceAccount tokens) and what the cluster's RBAC lets them do, and writes made as them.
    ['create', 'tokenreviews.authentication.k8s.io'],
    ['create', 'subjectaccessreviews.authorization.k8s.io'],
    ['impersonate', 'users'],
    ['impersonate', 'groups'],
    ['impersonate', 'serviceaccounts'],
  ],
};

/** What each role may not do. */
const MAY_NOT: Record<RoleName, string[][]> = {
  controller: [
    // Nothing about identity.
    ['impersonate', 'users'],
    ['impersonate', 'groups'],
    ['impersonate', 'serviceaccounts'],
    ['create', 'tokenreviews.authentication.k8s.io'],
    ['create', 'subjectaccessreviews.authorization.k8s.io'],
    // Nginx objects are people's: the controller writes their status only.
    ['create', 'nginxes.mycompany.com'],
    ['update', 'nginxes.mycompany.com'],
    ['patch', 'nginxes.mycompany.com'],
    ['delete', 'nginxes.mycompany.com'],
    ['patch', 'nginxes.mycompany.com', '--subresource=scale'],
    ['patch', 'nginxes.mycompany.com', '--subresource=finalizers'],
    ['list', 'events'],
    ['create', 'deployments.apps'],
    ['update', 'resourcequotas'],
    ['update', 'configmaps'],
    ['update', 'services'],
    ['create', 'endpointslices.discovery.k8s.io'],
    // Routes are people's: never listed, watched, created or deleted.
    ['list', 'httproutes.gateway.networking.k8s.io', '--all-namespaces'],
    ['watch', 'httproutes.gateway.networking.k8s.io', '--all-namespaces'],
    ['create', 'httproutes.gateway.networking.k8s.io'],
    ['delete', 'httproutes.gateway.networking.k8s.io'],
    ['get', 'referencegrants.gateway.networking.k8s.io'],
    ['create', 'secrets'],
    ['update', 'pods'],
    ['deletecollection', 'pods'],
    ['patch', 'pods', '--subresource=status'],
    ['create', 'pods', '--subresource=exec'],
    ['get', 'pods', '--subresource=log'],
    ['list', 'secrets', '--all-namespaces'],
    ['watch', 'secrets', '--all-namespaces'],
    ['update', 'ingresses.networking.k8s.io'],
    ['create', 'events.events.k8s.io'],
    ['get', '/logs'],
    ['create', 'customresourcedefinitions.apiextensions.k8s.io'],
    ['update', 'leases.coordination.k8s.io/kube-controller-manager', '-n', 'kube-system'],
    ['create', 'leases.coordination.k8s.io', '-n', 'default'],
    ['get', 'leases.coordination.k8s.io/other', '-n', CONTROL_PLANE_NAMESPACE],
    ['delete', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
    ['patch', 'validatingwebhookconfigurations.admissionregistration.k8s.io/other.example.com'],
    ['create', 'validatingwebhookconfigurations.admissionregistration.k8s.io'],
    ['delete', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
    ['create', 'mutatingwebhookconfigurations.admissionregistration.k8s.io'],
  ],
  api: [
    // Pods are the controller's: anything the API does to them is made as the person, or refused.
    ['create', 'pods'],
    ['delete', 'pods'],
    ['patch', 'pods'],
    ['update', 'pods'],
    ['deletecollection', 'pods'],
    ['create', 'pods', '--subresource=exec'],
    ['create', 'pods', '--subresource=eviction'],
    ['get', 'pods', '--subresource=log'],
    ['create', 'services'],
    ['patch', 'services'],
    ['delete', 'services'],
    ['create', 'configmaps'],
    ['delete', 'configmaps'],
    ['create', 'controllerrevisions.apps'],
    ['patch', 'controllerrevisions.apps'],
    ['delete', 'controllerrevisions.apps'],
    ['create', 'poddisruptionbudgets.policy'],
    ['create', 'ingresses.networking.k8s.io'],
    ['patch', 'ingresses.networking.k8s.io'],
    ['update', 'nginxes.mycompany.com', '--subresource=finalizers'],
    ['get', 'secrets'],
    ['list', 'secrets', '--all-namespaces'],
    ['create', 'leases.coordination.k8s.io', '-n', CONTROL_PLANE_NAMESPACE],
    ['update', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
    ['create', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
    ['patch', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
    ['create', 'customresourcedefinitions.apiextensions.k8s.io'],
    ['create', 'deployments.apps'],
    ['get', '/metrics'],
    ['impersonate', 'userextras.authentication.k8s.io'],
    ['impersonate', 'uids.authentication.k8s.io'],
    ['create', 'localsubjectaccessreviews.authorization.k8s.io'],
  ],
};

describe('deploy/ RBAC: the controller and the API, each as its own service account', () => {
  let controller: AppProcess | undefined;
  let api: AppProcess | undefined;
  const kubeconfigs: Partial<Record<RoleName, string>> = {};
  /** The controller's identity: holder of the Lease, reportingInstance of its Events. */
  let instance = '';
  let manifests = '';

  beforeAll(async () => {
    // What an admin does before deploying with INSTALL_CRD=false: the CRD, the namespace, then deploy/.
    await kubectl('apply', '-f', CRD_FILE);
    await kubectl('wait', '--for=condition=Established', 'crd/nginxes.mycompany.com', '--timeout=30s');
    await kubectl('get', 'namespace', CONTROL_PLANE_NAMESPACE).catch(() =>
      kubectl('create', 'namespace', CONTROL_PLANE_NAMESPACE),
    );
    // A Lease left by an interrupted run would make this run wait for it to expire before leading.
    await kubectl('delete', 'lease', 'nginx-controller', '-n', CONTROL_PLANE_NAMESPACE, '--ignore-not-found');
    manifests = await rbacManifests();
    await kubectl('apply', '-f', manifests);
    // The authorizer learns new bindings through a watch: wait until it answers with them.
    await waitFor(
      'the ClusterRoleBindings to take effect',
      async () =>
        (await canI(subject('controller'), 'watch', 'pods', '--all-namespaces')) &&
        canI(subject('api'), 'create', 'tokenreviews.authentication.k8s.io'),
    );
    await waitFor('the RoleBinding to take effect', () =>
      canI(subject('controller'), 'create', 'leases.coordination.k8s.io', '-n', CONTROL_PLANE_NAMESPACE),
    );
    for (const role of Object.keys(ROLES) as RoleName[])
      kubeconfigs[role] = await serviceAccountKubeconfig(CONTROL_PLANE_NAMESPACE, ROLES[role]);

    await kubectl('create', 'namespace', namespace);
    // Pods are refused (403) until the namespace's default service account exists.
    await waitFor('the default service account', () =>
      kubectl('get', 'serviceaccount', 'default', '-n', namespace).then(() => true),
    );
    [controller, api] = await Promise.all([
      startApp({
        ...HEADLESS,
        ROLE: 'controller',
        KUBECONFIG: kubeconfigs.controller!,
        INSTALL_CRD: 'false',
        LEADER_ELECTION: 'true',
        LEASE_NAMESPACE: CONTROL_PLANE_NAMESPACE,
        // Registered as the chart does (through the API's Service, which has no endpoints here: kube-apiserver's
        // calls fail and failurePolicy Ignore lets writes through), to prove the role may register it.
        ADMISSION_WEBHOOK: 'true',
        ADMISSION_WEBHOOK_SERVICE: `${CONTROL_PLANE_NAMESPACE}/nginx-control-plane:443`,
      }),
      startApp({
        ...HEADLESS,
        ROLE: 'api',
        KUBECONFIG: kubeconfigs.api!,
        INSTALL_CRD: 'false',
        AUTH_TOKENS: `rbac-editor:editor:${EDITOR_TOKEN}`,
      }),
    ]);
  });

  afterAll(async () => {
    await client.request({ method: 'DELETE', path: `${nginxes}/${name}` }).catch(() => {});
    await Promise.all([controller?.stop(), api?.stop()]);
    await kubectl('delete', 'validatingwebhookconfiguration', WEBHOOK, '--ignore-not-found');
    client.close();
    await kubectl('delete', 'namespace', namespace, '--ignore-not-found', '--wait=true', '--timeout=90s');
    if (manifests)
      await kubectl('delete', '--ignore-not-found', '--wait=true', '--timeout=90s', '-f', manifests);
    await kubectl(
      'delete',
      'namespace',
      CONTROL_PLANE_NAMESPACE,
      '--ignore-not-found',
      '--wait=true',
      '--timeout=90s',
    );
    for (const file of Object.values(kubeconfigs)) rmSync(dirname(file), { recursive: true, force: true });
  });

  it('renders the Dex example of deploy/identity as Dex with a static client for the control plane', async () => {
    const docs = parseAllDocuments(await kubectl('kustomize', join(DEPLOY, 'identity/dex'))).map(
      (doc) => doc.toJS() as { kind: string; data?: Record<string, string> },
    );
    expect(docs.map((doc) => doc.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
      'Namespace',
      'Service',
      'ServiceAccount',
    ]);
    expect(docs.find((doc) => doc.kind === 'ConfigMap')?.data?.['config.yaml']).toMatch(
      /id: nginx-control-plane/,
    );
  });

  it('signs each process in as its own service account', async () => {
    for (const role of Object.keys(ROLES) as RoleName[])
      expect(
        (
          await kubectlWith(
            kubeconfigs[role]!,
            'auth',
            'whoami',
            '-o',
            'jsonpath={.status.userInfo.username}',
          )
        ).trim(),
      ).toBe(subject(role));
  });

  describe.each(Object.keys(ROLES) as RoleName[])('the %s role', (role) => {
    it.each(rows(MAY[role]))('may %s', async (_what, args) => {
      expect(await canI(subject(role), ...args)).toBe(true);
    });

    it.each(rows(MAY_NOT[role]))('may not %s', async (_what, args) => {
      expect(await canI(subject(role), ...args)).toBe(false);
    });
  });

  it('runs an Nginx to 3 ready pods, with status, Events and the Lease, as the controller', async () => {
    await ours.create(name, 3);
    await converged(3);
    const nginx = await getNginx();
    for (const pod of await podsOf())
      expect(pod.metadata?.ownerReferences).toMatchObject([{ uid: nginx.metadata.uid, controller: true }]);

    const lease = await client.request<V1Lease>({ path: leasePath });
    instance = lease.spec?.holderIdentity ?? '';
    expect(instance).toBe(controller!.identity);
    expect(instance.startsWith(`${hostname()}-`)).toBe(true);

    // Events are sent behind the pod writes (at low priority): they may come a moment after the pods.
    const events = await waitFor('3 SuccessfulCreate Events', async () => {
      const events = await eventsAboutNginx();
      return events.filter((e) => e.reason === 'SuccessfulCreate').length >= 3 && events;
    });
    expectOnlyFrom(instance, events);
    expect(events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
    expect(await controller!.readiness()).toMatchObject({
      ready: true,
      checks: { controller: { leader: true } },
    });
  });

  it('scales down to 1, deleting 2 pods', async () => {
    const before = new Set((await podsOf()).map((p) => p.metadata?.uid));
    await scale(1);
    await converged(1);
    const remaining = (await podsOf()).map((p) => p.metadata?.uid);
    expect(remaining.every((uid) => before.has(uid))).toBe(true);
    const events = await waitFor('2 SuccessfulDelete Events', async () => {
      const events = await eventsAboutNginx();
      return events.filter((e) => e.reason === 'SuccessfulDelete').length >= 2 && events;
    });
    expectOnlyFrom(instance, events);
    expect(events.filter((e) => e.reason === 'SuccessfulDelete')).toHaveLength(2);
  });

  it('adopts an orphan pod matching its selector (a fresh read of the Nginx, then a patch of ownerReferences)', async () => {
    const nginx = await getNginx();
    const orphan = uniqueName('orphan');
    const watch = await watchPod(orphan);
    try {
      await client.request({
        method: 'POST',
        path: podsPath,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name: orphan,
            labels: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': name },
          },
          spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
        },
      });
      // Adopted, it is one pod too many for replicas 1, so it may be deleted right after: the watch saw it owned.
      const adopted = await waitFor('the orphan adopted', () =>
        watch.seen.find((pod) =>
          pod.metadata?.ownerReferences?.some((ref) => ref.uid === nginx.metadata.uid && ref.controller),
        ),
      );
      expect(adopted.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          name,
          uid: nginx.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    } finally {
      watch.stop();
    }
    await converged(1);
    expectOnlyFrom(instance, await eventsAboutNginx());
  });

  it('relays REST writes to Nginx objects as the API’s service account, and serves what the UI reads', async () => {
    await waitFor('the API ready', async () => (await api!.readiness()).ready);
    const restName = uniqueName('rest');
    const call = (path: string, method = 'GET', body?: unknown, contentType = 'application/json') =>
      fetch(`${api!.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${EDITOR_TOKEN}`, 'Content-Type': contentType },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await call(nginxes, 'POST', {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: restName },
      spec: { replicas: 0 },
    });
    expect(created.status).toBe(201);
    const merge = 'application/merge-patch+json';
    expect(
      (await call(`${nginxes}/${restName}`, 'PATCH', { spec: { image: 'nginx:1.27' } }, merge)).status,
    ).toBe(200);
    expect(
      (await call(`${nginxes}/${restName}/scale`, 'PATCH', { spec: { replicas: 0 } }, merge)).status,
    ).toBe(200);
    // The UI's reads of the test's Nginx: its pods (cache), Events and revisions (read with the API's identity).
    const controlplane = `/controlplane/v1/namespaces/${namespace}/nginxes/${name}`;
    for (const read of ['pods', 'events', 'revisions'])
      expect((await call(`${controlplane}/${read}`)).status, read).toBe(200);
    // No door of the API writes pods.
    expect((await call(`/api/v1/namespaces/${namespace}/pods`, 'POST', {})).status).toBe(404);
    expect((await call(`${nginxes}/${restName}`, 'DELETE')).status).toBe(200);
  });

  it('registers the admission webhook as the controller', async () => {
    await waitFor('the admission webhook registered', () =>
      controller!.output().includes(`admission webhook ${WEBHOOK} registered`),
    );
    expect(await kubectl('get', 'validatingwebhookconfiguration', WEBHOOK, '-o', 'name')).toContain(WEBHOOK);
  });

  it('keeps spec.tls and spec.ingress as the controller: the Secret looked up by name, then the pods, and the Ingress', async () => {
    const tlsName = uniqueName('tls');
    const secret = uniqueName('tls-secret');
    await client.request({
      method: 'POST',
      path: nginxes,
      body: {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name: tlsName },
        spec: {
          replicas: 1,
          service: {},
          tls: { secretName: secret },
          ingress: { host: 'rbac.example.com', tls: true },
        },
      },
    });
    await waitFor('ReplicaFailure SecretNotFound', async () => {
      const nginx = await ours.get(tlsName);
      return nginx.status?.conditions?.some(
        (c) => c.type === 'ReplicaFailure' && c.reason === 'SecretNotFound',
      );
    });
    await waitFor('the Ingress', () =>
      client.request({ path: `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${tlsName}` }),
    );
    // The API server checks a kubernetes.io/tls Secret has both keys, not what they hold: the pods are not run.
    const data = {
      'tls.crt': Buffer.from('crt').toString('base64'),
      'tls.key': Buffer.from('key').toString('base64'),
    };
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/secrets`,
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret }, type: 'kubernetes.io/tls', data },
    });
    await ours.converged(tlsName, 1, 60_000);
    await client.request({ method: 'DELETE', path: `${nginxes}/${tlsName}` });
  }, 120_000);

  it('was never refused a request, in either role', () => {
    expect(refusals(controller!.output(), 'controller')).toEqual([]);
    expect(refusals(api!.output(), 'api')).toEqual([]);
  });
});
