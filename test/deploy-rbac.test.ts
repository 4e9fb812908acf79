// The RBAC in deploy/ is enough for the controller and no more: deploy/app (minus the Deployment) is applied to the
// local cluster, the built app runs signed in as the nginx-controller service account, and it must manage an
// Nginx end to end (create, scale down, adopt, status, Events, Lease) without one refused request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CoreV1Event, V1Lease, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startApp, type AppProcess } from './support/app-process.js';
import { kubectl, kubectlWith } from './support/kubectl.js';
import { nginxesIn } from './support/operations.js';
import { ROOT } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { canI, serviceAccountKubeconfig } from './support/service-account.js';
import { uniqueName, waitFor } from './support/wait.js';

const CONTROL_PLANE_NAMESPACE = 'nginx-control-plane';
// TODO(roles): rewritten with the two-role RBAC. deploy/ has two service accounts now (the chart's
// nginx-control-plane-controller and nginx-control-plane-api); until then this runs the app as the controller's.
const SERVICE_ACCOUNT = 'nginx-control-plane-controller';
const SUBJECT = `system:serviceaccount:${CONTROL_PLANE_NAMESPACE}:${SERVICE_ACCOUNT}`;
const DEPLOY = join(ROOT, 'deploy');
const CRD_FILE = join(DEPLOY, 'crd/nginxes.mycompany.com.yaml');
const WEBHOOK = 'nginxes.mycompany.com';

/**
 * deploy/app rendered by kustomize, without the Deployment (this test runs the app itself), as one file to apply:
 * the namespace, the service account and its RBAC, the Service.
 */
async function rbacManifests(): Promise<string> {
  const docs = parseAllDocuments(await kubectl('kustomize', join(DEPLOY, 'app'))).filter(
    (doc) => doc.get('kind') !== 'Deployment',
  );
  const file = join(mkdtempSync(join(tmpdir(), 'ngx-deploy-')), 'app.yaml');
  writeFileSync(file, docs.map((doc) => doc.toString()).join('---\n'));
  return file;
}

/** A rendered manifest, loosely typed: the test reads what it checks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = { kind: string; metadata: { name: string; namespace?: string }; spec: any };

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
 * Fails when an Event about the Nginx came from another process than `instance` (this test's app: its Lease
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

/** `kubectl auth can-i` rows; those without a namespace are asked about the test's, where the SA has no Role. */
function rows(table: string[][]) {
  return table.map((args) => {
    const scoped = args.includes('-n') || args.includes('--all-namespaces');
    return [args.join(' '), scoped ? args : [...args, '-n', namespace]] as const;
  });
}

/**
 * Lines of the app's output where the API server refused one of its requests for lack of rights: RBAC's denials
 * (which name the user) and any refusal about this test's namespace. The controller reconciles every namespace,
 * so on a shared cluster it also meets other tests' Nginxes, some refused by their own ResourceQuota on purpose
 * (403 "exceeded quota"): those say nothing about this role.
 */
function refusals(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /forbidden|\b403\b(?![.:\dZ])/i.test(line))
    .filter(
      (line) =>
        line.includes(SUBJECT) ||
        / cannot [a-z]+ resource /.test(line) ||
        /HTTP 403/.test(line) ||
        line.includes(namespace),
    );
}

describe('deploy/ RBAC for the nginx-controller service account', () => {
  let api: AppProcess | undefined;
  let kubeconfig: string;
  /** The app's identity: holder of the Lease, reportingInstance of its Events. */
  let instance = '';
  let manifests = '';

  beforeAll(async () => {
    // What an admin does before deploying with INSTALL_CRD=false: the CRD, then deploy/.
    await kubectl('apply', '-f', CRD_FILE);
    await kubectl('wait', '--for=condition=Established', 'crd/nginxes.mycompany.com', '--timeout=30s');
    // A Lease left by an interrupted run would make this run wait for it to expire before leading.
    await kubectl('delete', 'lease', 'nginx-controller', '-n', CONTROL_PLANE_NAMESPACE, '--ignore-not-found');
    manifests = await rbacManifests();
    // TODO(roles): deploy/app no longer holds the Namespace (it is created first, with the Secrets).
    await kubectl('get', 'namespace', CONTROL_PLANE_NAMESPACE).catch(() =>
      kubectl('create', 'namespace', CONTROL_PLANE_NAMESPACE),
    );
    await kubectl('apply', '-f', manifests);
    // The authorizer learns new bindings through a watch: wait until it answers with them.
    await waitFor('the ClusterRoleBinding to take effect', () =>
      canI(SUBJECT, 'watch', 'pods', '--all-namespaces'),
    );
    await waitFor('the RoleBinding to take effect', () =>
      canI(SUBJECT, 'create', 'leases.coordination.k8s.io', '-n', CONTROL_PLANE_NAMESPACE),
    );
    kubeconfig = await serviceAccountKubeconfig(CONTROL_PLANE_NAMESPACE, SERVICE_ACCOUNT);

    await kubectl('create', 'namespace', namespace);
    // Pods are refused (403) until the namespace's default service account exists.
    await waitFor('the default service account', () =>
      kubectl('get', 'serviceaccount', 'default', '-n', namespace).then(() => true),
    );
    api = await startApp({
      KUBECONFIG: kubeconfig,
      INSTALL_CRD: 'false',
      WEB_MODE: 'off',
      DATABASE_URL: 'file::memory:',
      LEADER_ELECTION: 'true',
      LEASE_NAMESPACE: CONTROL_PLANE_NAMESPACE,
      AUTH_TOKENS: `rbac-editor:editor:${EDITOR_TOKEN}`,
      // Registered as the Deployment does (through the Service, which has no endpoints here: kube-apiserver's calls
      // fail and failurePolicy Ignore lets writes through), to prove the role may register it.
      ADMISSION_WEBHOOK: 'true',
      ADMISSION_WEBHOOK_SERVICE: `${CONTROL_PLANE_NAMESPACE}/nginx-control-plane:443`,
    });
  });

  afterAll(async () => {
    await client.request({ method: 'DELETE', path: `${nginxes}/${name}` }).catch(() => {});
    await api?.stop();
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
    if (kubeconfig) rmSync(dirname(kubeconfig), { recursive: true, force: true });
  });

  // TODO(roles): rewritten with the two-role RBAC
  it.skip('renders deploy/ as the app, its RBAC and one PostgreSQL on a volume claim that every replica shares', async () => {
    const docs = parseAllDocuments(await kubectl('kustomize', DEPLOY)).map((doc) => doc.toJS() as Manifest);
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
      [
        'ClusterRole/nginx-controller',
        'ClusterRoleBinding/nginx-controller',
        'CustomResourceDefinition/nginxes.mycompany.com',
        'Deployment/nginx-controller',
        'Namespace/nginx-control-plane',
        'NetworkPolicy/nginx-control-plane-postgresql',
        'Role/nginx-controller-leader-election',
        'RoleBinding/nginx-controller-leader-election',
        'Service/nginx-control-plane',
        'Service/nginx-control-plane-postgresql',
        'ServiceAccount/nginx-controller',
        'StatefulSet/nginx-control-plane-postgresql',
      ].sort(),
    );
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const app = deployment.spec.template.spec.containers[0];
    const env = (name: string) => app.env.find((e: { name: string }) => e.name === name);
    // The audit database comes from a required Secret, never a SQLite file on the pod.
    expect(env('DATABASE_URL')).toEqual({
      name: 'DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'nginx-control-plane-database', key: 'url' } },
    });
    expect(deployment.spec.replicas).toBe(2);
    // TLS terminates in the app, with the certificate of a required Secret; plain HTTP is redirected.
    expect(env('TLS_CERT_FILE')).toEqual({
      name: 'TLS_CERT_FILE',
      value: '/etc/nginx-control-plane/tls/tls.crt',
    });
    expect(env('TLS_KEY_FILE')).toEqual({
      name: 'TLS_KEY_FILE',
      value: '/etc/nginx-control-plane/tls/tls.key',
    });
    expect(env('PLAIN_HTTP')).toEqual({ name: 'PLAIN_HTTP', value: 'redirect' });
    expect(app.volumeMounts).toContainEqual({
      name: 'tls',
      mountPath: '/etc/nginx-control-plane/tls',
      readOnly: true,
    });
    expect(deployment.spec.template.spec.volumes).toContainEqual({
      name: 'tls',
      secret: { secretName: 'nginx-control-plane-tls', defaultMode: 0o440 },
    });
    for (const probe of [app.startupProbe, app.livenessProbe, app.readinessProbe])
      expect(probe.httpGet).toMatchObject({ port: 'https', scheme: 'HTTPS' });
    expect(app.ports).toEqual([{ name: 'https', containerPort: 3000, protocol: 'TCP' }]);
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'nginx-control-plane')!;
    expect(service.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    // The admission webhook is called through that Service, and trusts the CA beside the certificate.
    expect(env('ADMISSION_WEBHOOK_SERVICE')?.value).toBe(
      `${service.metadata.namespace}/${service.metadata.name}:${service.spec.ports[0].port}`,
    );
    expect(env('ADMISSION_WEBHOOK_CA_FILE')?.value).toBe('/etc/nginx-control-plane/tls/ca.crt');
    const postgres = docs.find((d) => d.kind === 'StatefulSet')!;
    expect(postgres.spec.volumeClaimTemplates[0].spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(postgres.spec.template.spec.containers[0].env).toContainEqual({
      name: 'POSTGRES_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'nginx-control-plane-database', key: 'password' } },
    });
    // deploy/external-database is the same app without the bundled PostgreSQL.
    const external = parseAllDocuments(await kubectl('kustomize', join(DEPLOY, 'external-database'))).map(
      (doc) => doc.toJS() as Manifest,
    );
    expect(external.map((d) => d.kind)).not.toContain('StatefulSet');
    expect(external.find((d) => d.kind === 'Deployment')).toEqual(deployment);
    expect(
      (await kubectlWith(kubeconfig, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}')).trim(),
    ).toBe(SUBJECT);
  });

  it('renders the Dex example of deploy/identity as Dex with a static client for the control plane', async () => {
    const docs = parseAllDocuments(await kubectl('kustomize', join(DEPLOY, 'identity/dex'))).map(
      (doc) => doc.toJS() as Manifest,
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
    const config = docs.find((doc) => doc.kind === 'ConfigMap') as unknown as {
      data: Record<string, string>;
    };
    expect(config.data['config.yaml']).toMatch(/id: nginx-control-plane/);
  });

  // TODO(roles): rewritten with the two-role RBAC
  it.skip.each([['deploy/'], ['deploy/external-database/']])(
    'passes a server-side dry run of %s on the local cluster',
    async (dir) => {
      const out = await kubectl('apply', '--dry-run=server', '-k', join(ROOT, dir));
      expect(out).toMatch(
        /deployment\.apps\/nginx-controller (created|configured|unchanged) \(server dry run\)/,
      );
      if (dir === 'deploy/')
        expect(out).toMatch(/statefulset\.apps\/nginx-control-plane-postgresql \w+ \(server dry run\)/);
    },
  );

  // TODO(roles): rewritten with the two-role RBAC
  it.skip.each(
    rows([
      ['get', 'nginxes.mycompany.com'],
      ['list', 'nginxes.mycompany.com', '--all-namespaces'],
      // The REST API relays writes to Nginx objects with the app's identity.
      ['create', 'nginxes.mycompany.com'],
      ['update', 'nginxes.mycompany.com'],
      ['patch', 'nginxes.mycompany.com'],
      ['delete', 'nginxes.mycompany.com'],
      ['watch', 'nginxes.mycompany.com', '--all-namespaces'],
      ['get', 'nginxes.mycompany.com', '--subresource=status'],
      ['update', 'nginxes.mycompany.com', '--subresource=status'],
      ['patch', 'nginxes.mycompany.com', '--subresource=status'],
      ['get', 'nginxes.mycompany.com', '--subresource=scale'],
      ['update', 'nginxes.mycompany.com', '--subresource=scale'],
      ['patch', 'nginxes.mycompany.com', '--subresource=scale'],
      // blockOwnerDeletion on the pods' owner reference, where OwnerReferencesPermissionEnforcement runs.
      ['update', 'nginxes.mycompany.com', '--subresource=finalizers'],
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
      ['create', 'services'],
      ['patch', 'services'],
      ['delete', 'services'],
      ['watch', 'poddisruptionbudgets.policy', '--all-namespaces'],
      ['create', 'poddisruptionbudgets.policy'],
      ['patch', 'poddisruptionbudgets.policy'],
      ['watch', 'endpointslices.discovery.k8s.io', '--all-namespaces'],
      ['watch', 'ingresses.networking.k8s.io', '--all-namespaces'],
      ['create', 'ingresses.networking.k8s.io'],
      ['patch', 'ingresses.networking.k8s.io'],
      ['delete', 'ingresses.networking.k8s.io'],
      // spec.tls: the Secret's metadata is read by name before pods that mount it are created.
      ['get', 'secrets'],
      ['get', 'pods'],
      ['list', 'pods', '--all-namespaces'],
      ['watch', 'pods', '--all-namespaces'],
      ['create', 'pods'],
      ['delete', 'pods'],
      ['patch', 'pods'],
      ['create', 'events'],
      ['patch', 'events'],
      ['list', 'events'],
      ['watch', 'events', '--all-namespaces'],
      ['get', '/metrics'],
      ['create', 'tokenreviews.authentication.k8s.io'],
      // AUTHORIZATION=kubernetes: SubjectAccessReviews for callers, and their writes sent as them.
      ['create', 'subjectaccessreviews.authorization.k8s.io'],
      ['impersonate', 'users'],
      ['impersonate', 'groups'],
      ['impersonate', 'serviceaccounts'],
      ['create', 'leases.coordination.k8s.io', '-n', CONTROL_PLANE_NAMESPACE],
      ['get', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
      ['update', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
      // The admission webhook's registration (server-side apply), of its own configuration only.
      ['create', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
      ['patch', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
    ]),
  )('may %s', async (_what, args) => {
    expect(await canI(SUBJECT, ...args)).toBe(true);
  });

  it.each(
    rows([
      ['create', 'deployments.apps'],
      ['update', 'resourcequotas'],
      ['update', 'configmaps'],
      ['update', 'services'],
      ['create', 'endpointslices.discovery.k8s.io'],
      ['create', 'secrets'],
      ['patch', 'nginxes.mycompany.com', '--subresource=finalizers'],
      ['deletecollection', 'nginxes.mycompany.com'],
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
      ['impersonate', 'userextras.authentication.k8s.io'],
      ['impersonate', 'uids.authentication.k8s.io'],
      ['create', 'localsubjectaccessreviews.authorization.k8s.io'],
      ['create', 'customresourcedefinitions.apiextensions.k8s.io'],
      ['update', 'leases.coordination.k8s.io/kube-controller-manager', '-n', 'kube-system'],
      ['create', 'leases.coordination.k8s.io', '-n', 'default'],
      ['get', 'leases.coordination.k8s.io/other', '-n', CONTROL_PLANE_NAMESPACE],
      ['delete', 'leases.coordination.k8s.io/nginx-controller', '-n', CONTROL_PLANE_NAMESPACE],
      ['patch', 'validatingwebhookconfigurations.admissionregistration.k8s.io/other.example.com'],
      ['create', 'validatingwebhookconfigurations.admissionregistration.k8s.io'],
      ['delete', `validatingwebhookconfigurations.admissionregistration.k8s.io/${WEBHOOK}`],
      ['create', 'mutatingwebhookconfigurations.admissionregistration.k8s.io'],
    ]),
  )('may not %s', async (_what, args) => {
    expect(await canI(SUBJECT, ...args)).toBe(false);
  });

  it('runs an Nginx to 3 ready pods, with status, Events and the Lease, as the service account', async () => {
    await ours.create(name, 3);
    await converged(3);
    const nginx = await getNginx();
    for (const pod of await podsOf())
      expect(pod.metadata?.ownerReferences).toMatchObject([{ uid: nginx.metadata.uid, controller: true }]);

    const lease = await client.request<V1Lease>({ path: leasePath });
    instance = lease.spec?.holderIdentity ?? '';
    expect(instance.startsWith(`${hostname()}-`)).toBe(true);

    // Events are sent behind the pod writes (at low priority): they may come a moment after the pods.
    const events = await waitFor('3 SuccessfulCreate Events', async () => {
      const events = await eventsAboutNginx();
      return events.filter((e) => e.reason === 'SuccessfulCreate').length >= 3 && events;
    });
    expectOnlyFrom(instance, events);
    expect(events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);

    const readiness = (await (await fetch(`${api!.url}/readyz`)).json()) as {
      ready: boolean;
      checks: { controller: { leader: boolean } };
    };
    expect(readiness).toMatchObject({ ready: true, checks: { controller: { leader: true } } });
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

  // TODO(roles): rewritten with the two-role RBAC
  it.skip('relays REST writes to Nginx objects as the service account', async () => {
    const restName = uniqueName('rest');
    const call = (path: string, method: string, body?: unknown, contentType = 'application/json') =>
      fetch(`${api!.url}${nginxes}${path}`, {
        method,
        headers: { Authorization: `Bearer ${EDITOR_TOKEN}`, 'Content-Type': contentType },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await call('', 'POST', {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: restName },
      spec: { replicas: 0 },
    });
    expect(created.status).toBe(201);
    expect(
      (
        await call(
          `/${restName}`,
          'PATCH',
          { spec: { replicas: 0, image: 'nginx:1.27' } },
          'application/merge-patch+json',
        )
      ).status,
    ).toBe(200);
    expect(
      (await call(`/${restName}/scale`, 'PATCH', { spec: { replicas: 0 } }, 'application/merge-patch+json'))
        .status,
    ).toBe(200);
    expect((await call(`/${restName}`, 'DELETE')).status).toBe(200);
  });

  it('registers the admission webhook as the service account', async () => {
    await waitFor('the admission webhook registered', () =>
      api!.output().includes(`admission webhook ${WEBHOOK} registered`),
    );
    expect(await kubectl('get', 'validatingwebhookconfiguration', WEBHOOK, '-o', 'name')).toContain(WEBHOOK);
  });
  it('keeps spec.tls and spec.ingress as the service account: the Secret looked up by name, then the pods, and the Ingress', async () => {
    const tlsName = uniqueName('tls');
    const secret = uniqueName('tls-secret');
    const tlsNginxes = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
    await client.request({
      method: 'POST',
      path: tlsNginxes,
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
    await client.request({ method: 'DELETE', path: `${tlsNginxes}/${tlsName}` });
  }, 120_000);

  // TODO(roles): rewritten with the two-role RBAC
  it.skip('was never refused a request', () => {
    expect(refusals(api!.output())).toEqual([]);
  });
});
