// Runs alone: installs the chart, whose cluster-scoped objects every file shares.
// The Helm chart deploy/helm/nginx-control-plane: it lints, renders what its values ask (the two roles, their
// least-privilege RBAC, the Service, the bundled or an external PostgreSQL, OIDC, both webhooks…), refuses a value
// out of range naming it, is the source of the kustomizations in deploy/ (npm run deploy:render), and installs for
// real on the local cluster into a namespace of its own (kwok plays the kubelets: pods become Ready without running
// the image), then uninstalls leaving nothing behind but the CRD, which other tests use (crd.install=false here).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import {
  CHART,
  KUSTOMIZATIONS,
  helm,
  helmTemplate,
  renderKustomizations,
  withoutHelmOnly,
} from '../tools/deploy/chart.js';
import { applyNginxCrd, kubectl } from './support/kubectl.js';
import { KUBECONFIG_PATH, ROOT } from './support/paths.js';
import { canI } from './support/service-account.js';
import { uniqueName, waitFor } from './support/wait.js';

/** A rendered object, loosely typed: the test reads what it checks. */
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [field: string]: any;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

const objects = (text: string) =>
  parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((object): object is Manifest => object !== null);
const render = async (args: string[] = [], options?: Parameters<typeof helmTemplate>[1]) =>
  objects(await helmTemplate(args, options));
const id = (object: Manifest) => `${object.kind}/${object.metadata.name}`;

function find(all: Manifest[], kind: string, name: string): Manifest {
  const found = all.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} among ${all.map(id).join(', ')}`);
  return found;
}
const podSpec = (workload: Manifest) => workload.spec.template.spec;
const container = (workload: Manifest) => podSpec(workload).containers[0];
/** A container's environment: name → value (or valueFrom). */
const envOf = (workload: Manifest): Record<string, unknown> =>
  Object.fromEntries((container(workload).env as EnvVar[]).map((e) => [e.name, e.value ?? e.valueFrom]));

/** A ClusterRole's or Role's rules flattened: `group:resource` (or the URL, `…#resourceNames`) → verbs. */
function grants(role: Manifest): Record<string, string> {
  const result: Record<string, string> = {};
  for (const rule of role.rules as {
    apiGroups?: string[];
    resources?: string[];
    nonResourceURLs?: string[];
    resourceNames?: string[];
    verbs: string[];
  }[]) {
    const targets =
      rule.nonResourceURLs ??
      rule.resources!.flatMap((resource) => rule.apiGroups!.map((group) => `${group || 'core'}:${resource}`));
    for (const target of targets) {
      const key = rule.resourceNames ? `${target}#${rule.resourceNames.join(',')}` : target;
      result[key] = [result[key], ...rule.verbs].filter(Boolean).join(',');
    }
  }
  return result;
}

// The two roles' RBAC as the design gives it (one template per role: a change there is a change here).
const CONTROLLER_GRANTS = {
  'mycompany.com:nginxes': 'get,list,watch',
  'mycompany.com:nginxes/status': 'get,update,patch',
  'mycompany.com:nginxes/finalizers': 'update',
  'core:pods': 'get,list,watch,create,delete,patch',
  'core:configmaps': 'list,watch,create,delete',
  'apps:controllerrevisions': 'get,list,watch,create,patch,delete',
  'core:services': 'get,list,watch,create,patch,delete',
  'policy:poddisruptionbudgets': 'get,list,watch,create,patch,delete',
  'discovery.k8s.io:endpointslices': 'list,watch',
  'gateway.networking.k8s.io:httproutes': 'get,patch',
  'gateway.networking.k8s.io:referencegrants': 'list',
  'networking.k8s.io:ingresses': 'get,list,watch,create,patch,delete',
  'core:secrets': 'get',
  'core:resourcequotas': 'get,list,watch',
  'core:events': 'create,patch',
  '/metrics': 'get',
  'admissionregistration.k8s.io:validatingwebhookconfigurations#nginxes.mycompany.com': 'create,patch',
};
const API_GRANTS = {
  'mycompany.com:nginxes': 'get,list,watch,create,update,patch,delete,deletecollection',
  'mycompany.com:nginxes/status': 'get,update,patch',
  'mycompany.com:nginxes/scale': 'get,update,patch',
  'core:pods': 'get,list,watch',
  'apps:controllerrevisions': 'get,list,watch',
  'core:events': 'get,list,watch,create,patch',
  'authentication.k8s.io:tokenreviews': 'create',
  'authorization.k8s.io:subjectaccessreviews': 'create',
  'core:users': 'impersonate',
  'core:groups': 'impersonate',
  'core:serviceaccounts': 'impersonate',
};
const LEADER_ELECTION_GRANTS = {
  'coordination.k8s.io:leases': 'create',
  'coordination.k8s.io:leases#nginx-controller': 'get,update',
};

describe('the Helm chart deploy/helm/nginx-control-plane', () => {
  it('passes helm lint, with its defaults and with every option set', async () => {
    expect(await helm('lint', CHART)).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    expect(await helm('lint', CHART, '-f', everyOptionFile())).toMatch(/0 chart\(s\) failed/);
  });

  it('renders the defaults: a controller and an API Deployment, each with its own RBAC, the Service, PostgreSQL and the CRD', async () => {
    const all = await render();
    expect(all.map(id).sort()).toEqual(
      [
        'ClusterRole/nginx-control-plane-api',
        'ClusterRole/nginx-control-plane-controller',
        'ClusterRoleBinding/nginx-control-plane-api',
        'ClusterRoleBinding/nginx-control-plane-controller',
        'CustomResourceDefinition/nginxes.mycompany.com',
        'Deployment/nginx-control-plane-api',
        'Deployment/nginx-control-plane-controller',
        'NetworkPolicy/nginx-control-plane-postgresql',
        'PodDisruptionBudget/nginx-control-plane-api',
        'PodDisruptionBudget/nginx-control-plane-controller',
        'Role/nginx-control-plane-controller-leader-election',
        'RoleBinding/nginx-control-plane-controller-leader-election',
        'Service/nginx-control-plane',
        'Service/nginx-control-plane-controller-metrics',
        'Service/nginx-control-plane-postgresql',
        'ServiceAccount/nginx-control-plane-api',
        'ServiceAccount/nginx-control-plane-controller',
        'StatefulSet/nginx-control-plane-postgresql',
      ].sort(),
    );
    for (const object of all.filter(
      (o) => o.kind !== 'CustomResourceDefinition' && !o.kind.startsWith('Cluster'),
    ))
      expect(object.metadata.namespace, id(object)).toBe('nginx-control-plane');

    // RBAC: exactly the design's rules, each role bound to its own service account in the release namespace.
    expect(grants(find(all, 'ClusterRole', 'nginx-control-plane-controller'))).toEqual(CONTROLLER_GRANTS);
    expect(grants(find(all, 'ClusterRole', 'nginx-control-plane-api'))).toEqual(API_GRANTS);
    expect(grants(find(all, 'Role', 'nginx-control-plane-controller-leader-election'))).toEqual(
      LEADER_ELECTION_GRANTS,
    );
    for (const role of ['controller', 'api']) {
      const binding = find(all, 'ClusterRoleBinding', `nginx-control-plane-${role}`);
      expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: `nginx-control-plane-${role}` });
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: `nginx-control-plane-${role}`, namespace: 'nginx-control-plane' },
      ]);
    }

    const controller = find(all, 'Deployment', 'nginx-control-plane-controller');
    const api = find(all, 'Deployment', 'nginx-control-plane-api');
    const service = find(all, 'Service', 'nginx-control-plane');
    for (const [workload, component] of [
      [controller, 'controller'],
      [api, 'api'],
    ] as const) {
      expect(workload.spec.replicas).toBe(2);
      // Rolling updates drop nothing: a new pod is ready before an old one goes.
      expect(workload.spec.strategy).toEqual({
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
      });
      expect(podSpec(workload).serviceAccountName).toBe(`nginx-control-plane-${component}`);
      expect(podSpec(workload).terminationGracePeriodSeconds).toBe(30);
      expect(podSpec(workload).securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container(workload).securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container(workload).image).toBe('nginx-control-plane:latest');
      expect(envOf(workload)).toMatchObject({
        ROLE: component,
        HOST: '0.0.0.0',
        PORT: '3000',
        DATABASE_URL: { secretKeyRef: { name: 'nginx-control-plane-database', key: 'url' } },
        MIGRATE_WAIT_SECONDS: '120',
        INSTALL_CRD: 'false',
        LOG_FORMAT: 'json',
        HOME: '/tmp',
      });
      expect(envOf(workload)).not.toHaveProperty('WATCH_NAMESPACE');
      expect(envOf(workload)).not.toHaveProperty('IMAGE_ALLOWLIST');
      expect(find(all, 'PodDisruptionBudget', `nginx-control-plane-${component}`).spec).toEqual({
        maxUnavailable: 1,
        selector: { matchLabels: workload.spec.selector.matchLabels },
      });
    }

    // The controller: plain HTTP health and metrics only, the Lease in its own namespace, and the admission
    // webhook registered to call the API's Service with the TLS Secret's CA (the only key it mounts).
    expect(envOf(controller)).toEqual({
      ...envOf(controller),
      TLS: 'false',
      LEADER_ELECTION: 'true',
      LEASE_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      ADMISSION_WEBHOOK: 'true',
      ADMISSION_WEBHOOK_SERVICE: `${service.metadata.namespace}/${service.metadata.name}:${service.spec.ports[0].port}`,
      ADMISSION_WEBHOOK_CA_FILE: '/etc/nginx-control-plane/tls/ca.crt',
      KUBE_API_QPS: '50',
      KUBE_API_BURST: '100',
    });
    expect(envOf(controller)).not.toHaveProperty('TLS_CERT_FILE');
    expect(container(controller).ports).toEqual([{ name: 'http', containerPort: 3000, protocol: 'TCP' }]);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      expect(container(controller)[probe].httpGet, probe).toEqual({
        path: probe === 'readinessProbe' ? '/readyz' : '/healthz',
        port: 'http',
      });
    expect(podSpec(controller).volumes).toContainEqual({
      name: 'tls-ca',
      secret: {
        secretName: 'nginx-control-plane-tls',
        defaultMode: 0o440,
        items: [{ key: 'ca.crt', path: 'ca.crt' }],
      },
    });
    expect(container(controller).lifecycle).toBeUndefined();

    // The API: TLS in the app on one port (plain HTTP redirected), HTTPS probes, a pause before stopping so its
    // endpoint is gone first, the per-token rate limit shared by its replicas.
    expect(envOf(api)).toMatchObject({
      TLS_CERT_FILE: '/etc/nginx-control-plane/tls/tls.crt',
      TLS_KEY_FILE: '/etc/nginx-control-plane/tls/tls.key',
      PLAIN_HTTP: 'redirect',
      AUTHORIZATION: 'roles',
      RATE_LIMIT_RPS: '10',
      AUDIT_WEBHOOK: 'false',
    });
    for (const absent of [
      'OIDC_ISSUER_URL',
      'AUTH_POLICY_FILE',
      'AUTH_TOKENS_FILE',
      'ALLOWED_HOSTS',
      'LEASE_NAMESPACE',
    ])
      expect(envOf(api), absent).not.toHaveProperty(absent);
    expect(container(api).ports).toEqual([{ name: 'https', containerPort: 3000, protocol: 'TCP' }]);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      expect(container(api)[probe].httpGet).toMatchObject({ port: 'https', scheme: 'HTTPS' });
    expect(container(api).lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
    expect(podSpec(api).volumes).toEqual([
      { name: 'data', emptyDir: {} },
      { name: 'next-cache', emptyDir: {} },
      { name: 'tmp', emptyDir: {} },
      { name: 'tls', secret: { secretName: 'nginx-control-plane-tls', defaultMode: 0o440 } },
    ]);
    expect(container(api).volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual([
      '/app/.data',
      '/app/apps/web/.next/cache',
      '/tmp',
      '/etc/nginx-control-plane/tls',
    ]);

    // The Service: TLS only, the API's pods only, no session affinity (sessions live in the database).
    expect(service.spec).toEqual({
      type: 'ClusterIP',
      selector: api.spec.selector.matchLabels,
      ports: [{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }],
    });
    expect(find(all, 'Service', 'nginx-control-plane-controller-metrics').spec.selector).toEqual(
      controller.spec.selector.matchLabels,
    );

    // The bundled PostgreSQL, reachable from both roles' pods only.
    const postgres = find(all, 'StatefulSet', 'nginx-control-plane-postgresql');
    expect(postgres.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'nginx-control-plane',
      'app.kubernetes.io/component': 'database',
    });
    expect(postgres.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '10Gi' } },
    });
    expect(envOf(postgres).POSTGRES_PASSWORD).toEqual({
      secretKeyRef: { name: 'nginx-control-plane-database', key: 'password' },
    });
    const from = find(all, 'NetworkPolicy', 'nginx-control-plane-postgresql').spec.ingress[0].from[0]
      .podSelector;
    expect(from.matchExpressions).toEqual([
      { key: 'app.kubernetes.io/component', operator: 'In', values: ['controller', 'api'] },
    ]);

    // The CRD is deploy/crd's, kept by helm uninstall.
    const crd = find(all, 'CustomResourceDefinition', 'nginxes.mycompany.com');
    expect(crd.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(withoutHelmOnly(crd)).toEqual(
      parse(readFileSync(join(ROOT, 'deploy/crd/nginxes.mycompany.com.yaml'), 'utf8')),
    );
  });

  it('renders every option as asked', async () => {
    const all = await render(['-f', everyOptionFile()]);
    expect(all.map((o) => o.kind)).not.toContain('CustomResourceDefinition');
    expect(all.map((o) => o.kind)).not.toContain('StatefulSet');
    expect(all.map(id)).not.toContain('Service/nginx-control-plane-controller-metrics');
    expect(all.map(id)).not.toContain('NetworkPolicy/nginx-control-plane-postgresql');
    const controller = find(all, 'Deployment', 'nginx-control-plane-controller');
    const api = find(all, 'Deployment', 'nginx-control-plane-api');

    for (const workload of [controller, api]) {
      expect(container(workload).image).toBe('registry.example.com/ngx/control-plane:1.2.3');
      expect(container(workload).imagePullPolicy).toBe('Always');
      expect(podSpec(workload).imagePullSecrets).toEqual([{ name: 'registry' }]);
      expect(envOf(workload)).toMatchObject({
        DATABASE_URL: { secretKeyRef: { name: 'external-db', key: 'url' } },
        MIGRATE_WAIT_SECONDS: '30',
        IMAGE_ALLOWLIST: 'docker.io/library/nginx,registry.example.com/web/',
        WATCH_NAMESPACE: 'team-a',
        LOG_FORMAT: 'text',
      });
    }

    expect(controller.spec.replicas).toBe(3);
    expect(container(controller).resources).toEqual({
      requests: { cpu: '50m', memory: '128Mi' },
      limits: { cpu: '2', memory: '1Gi' },
    });
    expect(envOf(controller)).toMatchObject({
      ADMISSION_WEBHOOK: 'false',
      KUBE_API_QPS: '25',
      KUBE_API_BURST: '60',
      EXTRA: 'controller',
    });
    expect(envOf(controller)).not.toHaveProperty('ADMISSION_WEBHOOK_SERVICE');
    expect(envOf(controller)).not.toHaveProperty('ADMISSION_WEBHOOK_CA_FILE');
    expect(podSpec(controller).volumes.map((v: { name: string }) => v.name)).toEqual(['data', 'tmp']);
    expect(podSpec(controller).nodeSelector).toEqual({ pool: 'system' });
    expect(podSpec(controller).tolerations).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'system', effect: 'NoSchedule' },
    ]);
    expect(podSpec(controller).affinity).toMatchObject({ podAntiAffinity: {} });
    expect(controller.spec.template.metadata.annotations).toEqual({ 'example.com/scrape': 'true' });

    expect(api.spec.replicas).toBe(3);
    expect(container(api).resources).toEqual({
      requests: { cpu: '200m', memory: '512Mi' },
      limits: { memory: '1Gi' },
    });
    expect(envOf(api)).toEqual({
      ...envOf(api),
      ALLOWED_HOSTS: 'ngx.example.com,nginx-control-plane.ngx.svc',
      AUTHORIZATION: 'kubernetes',
      AUTHORIZATION_CACHE_SECONDS: '30',
      AUTH_TOKENS_FILE: '/etc/nginx-control-plane/auth-tokens/tokens.yaml',
      TOKEN_AUDIENCE: 'ngx',
      // 25 per token for the whole API over 3 replicas: ceil(8.33).
      RATE_LIMIT_RPS: '9',
      OIDC_ISSUER_URL: 'https://dex.example.com',
      OIDC_CLIENT_ID: 'nginx-control-plane',
      OIDC_CLIENT_SECRET_FILE: '/etc/nginx-control-plane/oidc-client-secret/secret',
      OIDC_USERNAME_CLAIM: 'email',
      OIDC_USERNAME_PREFIX: '-',
      OIDC_GROUPS_CLAIM: 'groups',
      OIDC_GROUPS_PREFIX: 'oidc:',
      OIDC_REDIRECT_URL: 'https://ngx.example.com/controlplane/v1/auth/callback',
      OIDC_SCOPES: 'openid email groups',
      OIDC_CA_FILE: '/etc/nginx-control-plane/oidc-ca/ca.pem',
      SESSION_MAX_AGE_SECONDS: '3600',
      AUDIT_WEBHOOK: 'true',
      AUDIT_WEBHOOK_CLIENT_CA_FILE: '/etc/nginx-control-plane/audit-webhook-ca/ca.crt',
      AUDIT_WEBHOOK_CLIENT_NAMES: 'kube-apiserver-audit,audit-2',
      EXTRA: 'api',
    });
    expect(envOf(api)).not.toHaveProperty('AUTH_POLICY_FILE');
    expect(podSpec(api).volumes).toEqual([
      { name: 'data', emptyDir: {} },
      { name: 'next-cache', emptyDir: {} },
      { name: 'tmp', emptyDir: {} },
      { name: 'tls', secret: { secretName: 'ngx-serving', defaultMode: 0o440 } },
      { name: 'auth-tokens', secret: { secretName: 'api-tokens', defaultMode: 0o440 } },
      {
        name: 'oidc-client-secret',
        secret: { secretName: 'dex-client', defaultMode: 0o440, items: [{ key: 'secret', path: 'secret' }] },
      },
      { name: 'oidc-ca', configMap: { name: 'dex-ca', items: [{ key: 'ca.pem', path: 'ca.pem' }] } },
      {
        name: 'audit-webhook-ca',
        secret: { secretName: 'audit-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
      },
      { name: 'extra', emptyDir: {} },
    ]);
    expect(container(api).volumeMounts).toContainEqual({ name: 'extra', mountPath: '/extra' });
    expect(podSpec(api).nodeSelector).toEqual({ pool: 'web' });
    expect(find(all, 'Service', 'nginx-control-plane').spec).toMatchObject({
      type: 'LoadBalancer',
      ports: [{ name: 'https', port: 8443, targetPort: 'https', protocol: 'TCP' }],
    });
    expect(find(all, 'Service', 'nginx-control-plane').metadata.annotations).toEqual({
      'example.com/lb': 'internal',
    });
    expect(all.filter((o) => o.kind === 'PodDisruptionBudget')).toHaveLength(2);
  });

  it('renders another release in another namespace: names of its own, a generated database Secret, a roles policy, one replica each', async () => {
    const all = await render(
      [
        '--set',
        'controller.replicas=1,api.replicas=1,database.createSecret=true',
        '--set-json',
        'api.rateLimit.perTokenRps=0.5',
        '--set-json',
        'api.authorization.policy=[{"group":"oidc:admins","role":"admin"}]',
      ],
      { release: 'ngx-b', namespace: 'team-b' },
    );
    expect(all.map((o) => o.kind)).not.toContain('PodDisruptionBudget');
    expect(find(all, 'ClusterRoleBinding', 'ngx-b-controller').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'ngx-b-controller', namespace: 'team-b' },
    ]);
    expect(find(all, 'ClusterRole', 'ngx-b-api').rules).toEqual(
      find(await render(), 'ClusterRole', 'nginx-control-plane-api').rules,
    );
    const controller = find(all, 'Deployment', 'ngx-b-controller');
    const api = find(all, 'Deployment', 'ngx-b-api');
    expect(envOf(controller).ADMISSION_WEBHOOK_SERVICE).toBe('team-b/ngx-b:443');
    expect(envOf(api)).toMatchObject({
      AUTH_POLICY_FILE: '/etc/nginx-control-plane/auth-policy/policy.yaml',
      RATE_LIMIT_RPS: '1',
      DATABASE_URL: { secretKeyRef: { name: 'ngx-b-database', key: 'url' } },
    });
    expect(podSpec(api).volumes).toContainEqual({
      name: 'auth-policy',
      configMap: { name: 'ngx-b-auth-policy' },
    });
    expect(podSpec(api).volumes).toContainEqual({
      name: 'tls',
      secret: { secretName: 'ngx-b-tls', defaultMode: 0o440 },
    });
    expect(parse(find(all, 'ConfigMap', 'ngx-b-auth-policy').data['policy.yaml'])).toEqual([
      { group: 'oidc:admins', role: 'admin' },
    ]);
    // Not in a cluster, `lookup` finds nothing: a new random password, in the URL of the bundled PostgreSQL.
    const secret = find(all, 'Secret', 'ngx-b-database');
    expect(secret.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    const password = Buffer.from(secret.data.password, 'base64').toString();
    expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(Buffer.from(secret.data.url, 'base64').toString()).toBe(
      `postgresql://nginx:${password}@ngx-b-postgresql:5432/audit`,
    );
    expect(envOf(find(all, 'StatefulSet', 'ngx-b-postgresql')).POSTGRES_PASSWORD).toEqual({
      secretKeyRef: { name: 'ngx-b-database', key: 'password' },
    });
  });

  it.each([
    ['api.replicas=-1', '/api/replicas'],
    ['api.replicas=0', '/api/replicas'],
    ['controller.replicas=0', '/controller/replicas'],
    ['api.replicas=1.5', '/api/replicas'],
    ['api.authorization.mode=abac', '/api/authorization/mode'],
    ['api.authorization.cacheSeconds=301', '/api/authorization/cacheSeconds'],
    ['api.service.port=70000', '/api/service/port'],
    ['controller.port=0', '/controller/port'],
    ['api.rateLimit.perTokenRps=0', '/api/rateLimit/perTokenRps'],
    ['controller.kubeApi.qps=-1', '/controller/kubeApi/qps'],
    ['api.resources.requests.cpu=lots', '/api/resources/requests/cpu'],
    ['controller.resources.request.cpu=1', '/controller/resources'],
    ['logFormat=xml', '/logFormat'],
    ['watchNamespace=Team_A', '/watchNamespace'],
    ['api.oidc.issuerUrl=http://dex.example.com', '/api/oidc/issuerUrl'],
    ['api.replica=3', '/api'],
  ])('refuses --set %s, naming it (%s)', async (set, pointer) => {
    const refusal = helmTemplate(['--set', set]);
    await expect(refusal).rejects.toThrow(/values don't meet the specifications of the schema/);
    await expect(refusal).rejects.toThrow(`at '${pointer}'`);
  });

  it.each([
    [['--set', 'api.auditWebhook.enabled=true'], 'api.auditWebhook.enabled needs api.auditWebhook.clientCA'],
    [
      ['--set', 'api.authorization.mode=kubernetes,api.authorization.policyConfigMap=mine'],
      'apply only with api.authorization.mode roles',
    ],
    [['--set', 'api.oidc.issuerUrl=https://dex.example.com'], 'api.oidc.issuerUrl needs api.oidc.clientId'],
    [['--set', 'database.createSecret=true,postgresql.bundled=false'], 'needs database.url'],
    [['--set', `fullnameOverride=${'n'.repeat(41)}`], 'fullnameOverride'],
  ])('refuses %j, saying why', async (args, message) => {
    await expect(helmTemplate(args)).rejects.toThrow(message);
  });

  it('is the source of deploy/app and deploy/postgresql: they are as npm run deploy:render writes them', async () => {
    const rendered = await renderKustomizations();
    const committed = new Map<string, string>();
    for (const { dir } of Object.values(KUSTOMIZATIONS))
      for (const name of readdirSync(join(ROOT, dir)).filter((n) => /\.ya?ml$/.test(n)))
        committed.set(`${dir}/${name}`, readFileSync(join(ROOT, dir, name), 'utf8'));
    expect([...committed.keys()].sort(), 'stale: run npm run deploy:render').toEqual(
      [...rendered.keys()].sort(),
    );
    for (const [path, text] of rendered)
      expect(committed.get(path), `${path} is stale: run npm run deploy:render`).toBe(text);
  });

  it.each([
    ['deploy/', []],
    ['deploy/external-database/', ['--set', 'postgresql.bundled=false']],
  ])('gives kubectl kustomize %s the objects of helm template %j', async (dir, args) => {
    const key = (o: Manifest) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const byKey = (list: Manifest[]) =>
      Object.fromEntries(
        list.map((o) => [key(o), withoutHelmOnly(o)]).sort(([a], [b]) => String(a).localeCompare(String(b))),
      );
    const kustomized = objects(await kubectl('kustomize', join(ROOT, dir)));
    const helmed = await render(args);
    expect(Object.keys(byKey(kustomized))).toEqual(Object.keys(byKey(helmed)));
    expect(byKey(kustomized)).toEqual(byKey(helmed));
  });
});

/** A values file that sets every option away from its default. */
function everyOptionFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ngx-helm-values-')), 'values.yaml');
  writeFileSync(
    file,
    stringify({
      image: { repository: 'registry.example.com/ngx/control-plane', tag: '1.2.3', pullPolicy: 'Always' },
      imagePullSecrets: [{ name: 'registry' }],
      crd: { install: false },
      tls: { secretName: 'ngx-serving' },
      database: { existingSecret: 'external-db', migrateWaitSeconds: 30 },
      postgresql: { bundled: false },
      imageAllowlist: ['docker.io/library/nginx', 'registry.example.com/web/'],
      watchNamespace: 'team-a',
      logFormat: 'text',
      controller: {
        replicas: 3,
        resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '2', memory: '1Gi' } },
        kubeApi: { qps: 25, burst: 60 },
        metricsService: { enabled: false },
        extraEnv: [{ name: 'EXTRA', value: 'controller' }],
        podAnnotations: { 'example.com/scrape': 'true' },
        nodeSelector: { pool: 'system' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'system', effect: 'NoSchedule' }],
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  topologyKey: 'kubernetes.io/hostname',
                  labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'controller' } },
                },
              },
            ],
          },
        },
      },
      api: {
        replicas: 3,
        // Merged into the defaults: null drops the default cpu limit.
        resources: { requests: { cpu: '200m', memory: '512Mi' }, limits: { cpu: null, memory: '1Gi' } },
        service: { type: 'LoadBalancer', port: 8443, annotations: { 'example.com/lb': 'internal' } },
        allowedHosts: ['ngx.example.com', 'nginx-control-plane.ngx.svc'],
        authorization: { mode: 'kubernetes', cacheSeconds: 30 },
        authTokens: { existingSecret: 'api-tokens' },
        tokenAudience: 'ngx',
        rateLimit: { perTokenRps: 25 },
        oidc: {
          issuerUrl: 'https://dex.example.com',
          clientId: 'nginx-control-plane',
          clientSecret: { existingSecret: 'dex-client', key: 'secret' },
          usernameClaim: 'email',
          usernamePrefix: '-',
          groupsClaim: 'groups',
          groupsPrefix: 'oidc:',
          redirectUrl: 'https://ngx.example.com/controlplane/v1/auth/callback',
          scopes: 'openid email groups',
          ca: { configMapName: 'dex-ca', key: 'ca.pem' },
          sessionMaxAgeSeconds: 3600,
        },
        auditWebhook: {
          enabled: true,
          clientCA: { secretName: 'audit-ca' },
          clientNames: ['kube-apiserver-audit', 'audit-2'],
        },
        extraEnv: [{ name: 'EXTRA', value: 'api' }],
        extraVolumes: [{ name: 'extra', emptyDir: {} }],
        extraVolumeMounts: [{ name: 'extra', mountPath: '/extra' }],
        nodeSelector: { pool: 'web' },
      },
      admissionWebhook: { enabled: false },
    }),
  );
  return file;
}

// The default render installed for real, as `helm install` does it, into a namespace and release of its own.
describe('the chart installed on the local cluster', () => {
  const release = uniqueName('ngx-helm');
  const namespace = release;
  const dir = mkdtempSync(join(tmpdir(), 'ngx-helm-'));
  const pv = `${release}-postgresql`;
  const helmIn = (...args: string[]) =>
    helm(...args, '--namespace', namespace, '--kubeconfig', KUBECONFIG_PATH);
  let installed = false;

  beforeAll(async () => {
    // The CRD as other tests apply it (deploy/crd, the chart's own): the roles' rules name its resources.
    await applyNginxCrd();
    await kubectl('create', 'namespace', namespace);
    // What docs/operations.md has an admin create first: the database Secret and the TLS Secret (with ca.crt).
    const password = 'test-password-0123456789';
    await kubectl(
      'create',
      'secret',
      'generic',
      `${release}-database`,
      '-n',
      namespace,
      `--from-literal=password=${password}`,
      `--from-literal=url=postgresql://nginx:${password}@${release}-postgresql:5432/audit`,
    );
    const host = `${release}.${namespace}.svc`;
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=DNS:${host}`,
      '-keyout',
      join(dir, 'tls.key'),
      '-out',
      join(dir, 'tls.crt'),
    ]);
    writeFileSync(join(dir, 'ca.crt'), readFileSync(join(dir, 'tls.crt')));
    await kubectl(
      'create',
      'secret',
      'generic',
      `${release}-tls`,
      '-n',
      namespace,
      '--type=kubernetes.io/tls',
      `--from-file=${join(dir, 'tls.crt')}`,
      `--from-file=${join(dir, 'tls.key')}`,
      `--from-file=${join(dir, 'ca.crt')}`,
    );
    // The local cluster has no storage provisioner: a volume made for the PostgreSQL claim, bound to it by name.
    writeFileSync(
      join(dir, 'pv.yaml'),
      stringify({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: pv, labels: { 'app.kubernetes.io/instance': release } },
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path: join(dir, 'postgresql') },
          claimRef: { namespace, name: `data-${release}-postgresql-0` },
        },
      }),
    );
    await kubectl('apply', '-f', join(dir, 'pv.yaml'));
  });

  afterAll(async () => {
    if (installed) await helmIn('uninstall', release, '--wait', '--timeout', '60s').catch(() => {});
    await kubectl('delete', 'namespace', namespace, '--ignore-not-found', '--wait=true', '--timeout=90s');
    await kubectl('delete', 'persistentvolume', pv, '--ignore-not-found', '--wait=true', '--timeout=30s');
    for (const kind of ['clusterrolebinding', 'clusterrole'])
      await kubectl('delete', kind, '-l', `app.kubernetes.io/instance=${release}`, '--ignore-not-found');
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs the default render (but the CRD) and runs both Deployments and PostgreSQL to ready', async () => {
    await helmIn('install', release, CHART, '--set', 'crd.install=false');
    installed = true;
    await kubectl(
      'wait',
      '-n',
      namespace,
      '--for=condition=Available',
      '--timeout=60s',
      `deployment/${release}-controller`,
      `deployment/${release}-api`,
    );
    await kubectl(
      'wait',
      '-n',
      namespace,
      '--for=jsonpath={.status.readyReplicas}=1',
      '--timeout=60s',
      `statefulset/${release}-postgresql`,
    );
    const deployments = JSON.parse(await kubectl('get', 'deployments', '-n', namespace, '-o', 'json')) as {
      items: Manifest[];
    };
    expect(
      Object.fromEntries(deployments.items.map((d) => [d.metadata.name, d.status.availableReplicas])),
    ).toEqual({ [`${release}-controller`]: 2, [`${release}-api`]: 2 });
    expect(await helmIn('status', release)).toMatch(/STATUS: deployed/);
  });

  it('binds each role to its own rights, from its service account in the release namespace', async () => {
    const controller = `system:serviceaccount:${namespace}:${release}-controller`;
    const api = `system:serviceaccount:${namespace}:${release}-api`;
    const rows: [string, string[], boolean][] = [
      [controller, ['create', 'pods', '-n', 'default'], true],
      [controller, ['patch', 'nginxes.mycompany.com', '--subresource=status', '-n', 'default'], true],
      [controller, ['update', 'leases.coordination.k8s.io/nginx-controller', '-n', namespace], true],
      [controller, ['update', 'leases.coordination.k8s.io/nginx-controller', '-n', 'default'], false],
      [controller, ['create', 'nginxes.mycompany.com', '-n', 'default'], false],
      [controller, ['create', 'tokenreviews.authentication.k8s.io'], false],
      [controller, ['impersonate', 'users'], false],
      [api, ['create', 'nginxes.mycompany.com', '-n', 'default'], true],
      [api, ['create', 'subjectaccessreviews.authorization.k8s.io'], true],
      [api, ['impersonate', 'groups'], true],
      [api, ['create', 'pods', '-n', 'default'], false],
      [api, ['create', 'leases.coordination.k8s.io', '-n', namespace], false],
      [
        api,
        ['patch', 'validatingwebhookconfigurations.admissionregistration.k8s.io/nginxes.mycompany.com'],
        false,
      ],
    ];
    const answers = await Promise.all(rows.map(([user, args]) => canI(user, ...args)));
    expect(
      rows.map(([user, args], i) => `${user.split(':').pop()} ${args.join(' ')}: ${answers[i]}`),
    ).toEqual(rows.map(([user, args, allowed]) => `${user.split(':').pop()} ${args.join(' ')}: ${allowed}`));
  });

  it('uninstalls leaving nothing behind but the CRD', async () => {
    await helmIn('uninstall', release, '--wait', '--timeout', '60s');
    installed = false;
    // Pods and ReplicaSets go after their owners (garbage collection): wait for them.
    await waitFor(
      'every object of the release gone from its namespace',
      async () =>
        (
          await kubectl(
            'get',
            'all,serviceaccounts,roles,rolebindings,poddisruptionbudgets,networkpolicies,configmaps,secrets',
            '-n',
            namespace,
            '-l',
            `app.kubernetes.io/instance=${release}`,
            '-o',
            'name',
          )
        ).trim() === '',
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const cluster = await kubectl(
      'get',
      'clusterroles,clusterrolebindings',
      '-l',
      `app.kubernetes.io/instance=${release}`,
      '-o',
      'name',
    );
    expect(cluster.trim()).toBe('');
    expect((await helmIn('list', '-q')).trim()).toBe('');
    // The CRD was not the release's (crd.install=false): still there for the other tests.
    await kubectl('get', 'crd', 'nginxes.mycompany.com');
    await kubectl('delete', 'namespace', namespace, '--wait=true', '--timeout=90s');
    await kubectl('delete', 'persistentvolume', pv, '--wait=true', '--timeout=30s');
  });
});
