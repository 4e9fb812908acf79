import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadAppConfig } from './app-config.js';

const emptyDir = () => mkdtempSync(join(tmpdir(), 'ngx-config-'));

describe('loadAppConfig', () => {
  it('defaults to 127.0.0.1:3000, SQLite, production web UI and no kubeconfig outside a repo', () => {
    const cwd = emptyDir();
    const config = loadAppConfig({}, cwd);
    expect(config).toMatchObject({ host: '127.0.0.1', port: 3000, kubeconfigPath: undefined });
    expect(config.database.provider).toBe('sqlite');
    expect(config.web).toEqual({ mode: 'production', dir: join(cwd, 'apps/web') });
  });

  it('uses the local cluster kubeconfig when KUBECONFIG is unset and .cluster/kubeconfig exists', () => {
    const cwd = emptyDir();
    mkdirSync(join(cwd, '.cluster'));
    writeFileSync(join(cwd, '.cluster/kubeconfig'), 'apiVersion: v1\n');
    expect(loadAppConfig({}, cwd).kubeconfigPath).toBe(join(cwd, '.cluster/kubeconfig'));
  });

  it('honours KUBECONFIG over the local cluster', () => {
    const cwd = emptyDir();
    const own = join(cwd, 'own-kubeconfig');
    writeFileSync(own, 'apiVersion: v1\n');
    expect(loadAppConfig({ KUBECONFIG: own }, cwd).kubeconfigPath).toBe(own);
  });

  it('rejects a KUBECONFIG that names a missing file', () => {
    expect(() => loadAppConfig({ KUBECONFIG: '/nonexistent/kubeconfig' }, emptyDir())).toThrow(
      new ConfigError('KUBECONFIG names a file that does not exist: /nonexistent/kubeconfig'),
    );
  });

  it('keeps 30 days of audit trail, queues up to 10,000 records, and logs JSON unless told otherwise', () => {
    const config = loadAppConfig({}, emptyDir());
    expect(config.audit).toEqual({
      enabled: true,
      retentionDays: 30,
      queueLimit: 10_000,
      observedHoldMs: 10_000,
      timeline: true,
      apiserverLossPollMs: 15_000,
    });
    expect(config.logFormat).toBe('json');
    const custom = loadAppConfig(
      { AUDIT: 'false', AUDIT_RETENTION_DAYS: '7', AUDIT_QUEUE_LIMIT: '50', LOG_FORMAT: 'text' },
      emptyDir(),
    );
    expect(custom.audit).toMatchObject({ enabled: false, retentionDays: 7, queueLimit: 50 });
    expect(custom.logFormat).toBe('text');
  });

  it.each(['abc', '-1', '65536', '80.5', '0x'])('rejects PORT=%s', (port) => {
    expect(() => loadAppConfig({ PORT: port }, emptyDir())).toThrow(
      /PORT must be an integer from 0 to 65535/,
    );
  });

  it('authorizes with our roles unless AUTHORIZATION=kubernetes, whose answers are reused 10 s unless told otherwise', () => {
    expect(loadAppConfig({}, emptyDir()).auth.authorization).toEqual({ mode: 'roles' });
    expect(loadAppConfig({ AUTHORIZATION: 'kubernetes' }, emptyDir()).auth.authorization).toEqual({
      mode: 'kubernetes',
      cacheMs: 10_000,
    });
    expect(
      loadAppConfig({ AUTHORIZATION: 'kubernetes', AUTHORIZATION_CACHE_SECONDS: '0' }, emptyDir()).auth
        .authorization,
    ).toEqual({ mode: 'kubernetes', cacheMs: 0 });
    expect(() =>
      loadAppConfig({ AUTHORIZATION: 'kubernetes', AUTH_POLICY_FILE: 'policy.yaml' }, emptyDir()),
    ).toThrow(/AUTH_POLICY_FILE grants our roles, which AUTHORIZATION=kubernetes does not use/);
    expect(() => loadAppConfig({ AUTHORIZATION: 'rbac' }, emptyDir())).toThrow(
      new ConfigError('AUTHORIZATION must be roles or kubernetes (got "rbac")'),
    );
    for (const seconds of ['-1', 'soon', '301'])
      expect(() =>
        loadAppConfig({ AUTHORIZATION: 'kubernetes', AUTHORIZATION_CACHE_SECONDS: seconds }, emptyDir()),
      ).toThrow(/AUTHORIZATION_CACHE_SECONDS must be a number of seconds from 0 to 300/);
  });

  it('accepts PORT=0 (any free port) and PORT=8080', () => {
    expect(loadAppConfig({ PORT: '0' }, emptyDir()).port).toBe(0);
    expect(loadAppConfig({ PORT: '8080' }, emptyDir()).port).toBe(8080);
  });

  it('rejects an unknown WEB_MODE and an unsupported DATABASE_URL as ConfigError', () => {
    expect(() => loadAppConfig({ WEB_MODE: 'fast' }, emptyDir())).toThrow(ConfigError);
    expect(() => loadAppConfig({ DATABASE_URL: 'mysql://db/x' }, emptyDir())).toThrow(ConfigError);
  });

  it('limits the Kubernetes client to 50 qps, burst 100, and installs the CRD unless told not to', () => {
    expect(loadAppConfig({}, emptyDir()).kube).toEqual({
      qps: 50,
      burst: 100,
      installCrd: true,
      requestTimeoutMs: 30_000,
      http2: false,
    });
    expect(
      loadAppConfig({ KUBE_API_QPS: '5', KUBE_API_BURST: '10', INSTALL_CRD: 'false' }, emptyDir()).kube,
    ).toEqual({
      qps: 5,
      burst: 10,
      installCrd: false,
      requestTimeoutMs: 30_000,
      http2: false,
    });
    expect(loadAppConfig({ INSTALL_CRD: '0' }, emptyDir()).kube.installCrd).toBe(false);
  });

  it('talks HTTP/1.1 to the API server unless KUBE_API_HTTP2 asks for HTTP/2', () => {
    expect(loadAppConfig({ KUBE_API_HTTP2: 'true' }, emptyDir()).kube.http2).toBe(true);
    expect(loadAppConfig({ KUBE_API_HTTP2: 'false' }, emptyDir()).kube.http2).toBe(false);
  });

  it('watches the whole cluster unless WATCH_NAMESPACE names some, where the Lease then lives too', () => {
    expect(loadAppConfig({}, emptyDir())).toMatchObject({
      watchNamespaces: undefined,
      controller: { leaseNamespace: 'default' },
    });
    expect(loadAppConfig({ WATCH_NAMESPACE: 'team-a' }, emptyDir())).toMatchObject({
      watchNamespaces: ['team-a'],
      controller: { leaseNamespace: 'team-a' },
    });
    expect(loadAppConfig({ WATCH_NAMESPACE: ' team-b, team-a,,team-b ' }, emptyDir())).toMatchObject({
      watchNamespaces: ['team-b', 'team-a'],
      controller: { leaseNamespace: 'team-b' },
    });
    expect(
      loadAppConfig({ WATCH_NAMESPACE: 'team-a', LEASE_NAMESPACE: 'ops' }, emptyDir()).controller
        .leaseNamespace,
    ).toBe('ops');
  });

  it('allows any image unless IMAGE_ALLOWLIST names prefixes, which it normalises; refuses one it cannot read', () => {
    expect(loadAppConfig({}, emptyDir()).imageAllowlist).toBeUndefined();
    expect(loadAppConfig({ IMAGE_ALLOWLIST: ' ' }, emptyDir()).imageAllowlist).toBeUndefined();
    expect(
      loadAppConfig({ IMAGE_ALLOWLIST: 'docker.io/nginx, registry.example.com/web/' }, emptyDir())
        .imageAllowlist,
    ).toEqual({ prefixes: ['docker.io/library/nginx', 'registry.example.com/web/'] });
    expect(() => loadAppConfig({ IMAGE_ALLOWLIST: 'docker.io/nginx,nginx' }, emptyDir())).toThrow(
      new ConfigError(
        'IMAGE_ALLOWLIST: "nginx" must start with a registry host in lower case, as in docker.io/library/nginx or registry.example.com/web/',
      ),
    );
  });

  it('answers TLS with the local cluster certificate when it exists, unless TLS=false; CORS is off by default', () => {
    const cwd = emptyDir();
    expect(loadAppConfig({}, cwd).tls).toBeUndefined();
    mkdirSync(join(cwd, '.cluster/pki'), { recursive: true });
    writeFileSync(join(cwd, '.cluster/pki/control-plane.crt'), 'x');
    writeFileSync(join(cwd, '.cluster/pki/control-plane.key'), 'x');
    expect(loadAppConfig({}, cwd).tls).toEqual({
      certFile: join(cwd, '.cluster/pki/control-plane.crt'),
      keyFile: join(cwd, '.cluster/pki/control-plane.key'),
    });
    expect(loadAppConfig({ TLS: 'false' }, cwd).tls).toBeUndefined();
    expect(loadAppConfig({}, cwd).corsOrigins).toEqual([]);
    expect(loadAppConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }, cwd).corsOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it("hears kube-apiserver's audit webhook from the local cluster's CA over TLS, or from a CA it is given", () => {
    const cwd = emptyDir();
    mkdirSync(join(cwd, '.cluster/pki'), { recursive: true });
    writeFileSync(join(cwd, '.cluster/pki/ca.crt'), 'x');
    expect(loadAppConfig({}, cwd).auditWebhook).toBeUndefined(); // no TLS: no client certificates
    writeFileSync(join(cwd, '.cluster/pki/control-plane.crt'), 'x');
    writeFileSync(join(cwd, '.cluster/pki/control-plane.key'), 'x');
    expect(loadAppConfig({}, cwd).auditWebhook).toEqual({
      clientCaFile: join(cwd, '.cluster/pki/ca.crt'),
      clientNames: ['kube-apiserver-audit'],
    });
    expect(loadAppConfig({ AUDIT_WEBHOOK: 'false' }, cwd).auditWebhook).toBeUndefined();
    writeFileSync(join(cwd, 'audit-ca.crt'), 'x');
    expect(
      loadAppConfig({ AUDIT_WEBHOOK_CLIENT_CA_FILE: 'audit-ca.crt', AUDIT_WEBHOOK_CLIENT_NAMES: 'a, b' }, cwd)
        .auditWebhook,
    ).toEqual({ clientCaFile: join(cwd, 'audit-ca.crt'), clientNames: ['a', 'b'] });
    expect(() => loadAppConfig({ AUDIT_WEBHOOK_CLIENT_CA_FILE: 'missing.crt' }, cwd)).toThrow(
      /does not exist/,
    );
    expect(() => loadAppConfig({ AUDIT_WEBHOOK_CLIENT_NAMES: ' , ' }, cwd)).toThrow(/at least one/);
    expect(() => loadAppConfig({ AUDIT_WEBHOOK_CLIENT_CA_FILE: 'audit-ca.crt', TLS: 'false' }, cwd)).toThrow(
      /needs TLS/,
    );
  });

  it("registers the admission webhook with the local cluster's CA over TLS, or the CA and Service it is given", () => {
    const cwd = emptyDir();
    mkdirSync(join(cwd, '.cluster/pki'), { recursive: true });
    writeFileSync(join(cwd, '.cluster/pki/ca.crt'), 'x');
    expect(loadAppConfig({}, cwd).admissionWebhook).toBeUndefined(); // no TLS: kube-apiserver could not call it
    expect(() => loadAppConfig({ ADMISSION_WEBHOOK: 'true' }, cwd)).toThrow(/ADMISSION_WEBHOOK needs TLS/);
    writeFileSync(join(cwd, '.cluster/pki/control-plane.crt'), 'x');
    writeFileSync(join(cwd, '.cluster/pki/control-plane.key'), 'x');
    expect(loadAppConfig({}, cwd).admissionWebhook).toEqual({
      caFile: join(cwd, '.cluster/pki/ca.crt'),
      service: undefined,
    });
    expect(loadAppConfig({ ADMISSION_WEBHOOK: 'false' }, cwd).admissionWebhook).toBeUndefined();
    writeFileSync(join(cwd, 'ca.crt'), 'x');
    expect(
      loadAppConfig(
        {
          ADMISSION_WEBHOOK_CA_FILE: 'ca.crt',
          ADMISSION_WEBHOOK_SERVICE: 'nginx-control-plane/nginx-control-plane',
        },
        cwd,
      ).admissionWebhook,
    ).toEqual({
      caFile: join(cwd, 'ca.crt'),
      service: { namespace: 'nginx-control-plane', name: 'nginx-control-plane', port: 443 },
    });
    expect(
      loadAppConfig({ ADMISSION_WEBHOOK_SERVICE: 'ns/svc:8443' }, cwd).admissionWebhook?.service,
    ).toEqual({
      namespace: 'ns',
      name: 'svc',
      port: 8443,
    });
    expect(() => loadAppConfig({ ADMISSION_WEBHOOK_CA_FILE: 'missing.crt' }, cwd)).toThrow(/does not exist/);
    for (const service of ['svc', 'ns/', 'ns/svc:0', 'ns/svc:99999', 'NS/svc', 'ns/svc/x'])
      expect(() => loadAppConfig({ ADMISSION_WEBHOOK_SERVICE: service }, cwd), service).toThrow(
        /ADMISSION_WEBHOOK_SERVICE must be/,
      );
    expect(() => loadAppConfig({ ADMISSION_WEBHOOK: 'maybe' }, cwd)).toThrow(/true or false/);
  });

  it('registers the admission webhook where the controller runs: ROLE=controller for the API’s Service, ROLE=api never', () => {
    const cwd = emptyDir();
    mkdirSync(join(cwd, '.cluster/pki'), { recursive: true });
    writeFileSync(join(cwd, '.cluster/pki/ca.crt'), 'x');
    const service = { ADMISSION_WEBHOOK_SERVICE: 'nginx-control-plane/nginx-control-plane' };
    // The controller serves no webhook, so it needs no TLS of its own, but it must name the API's Service.
    expect(loadAppConfig({ ROLE: 'controller', ...service }, cwd).admissionWebhook).toEqual({
      caFile: join(cwd, '.cluster/pki/ca.crt'),
      service: { namespace: 'nginx-control-plane', name: 'nginx-control-plane', port: 443 },
    });
    expect(loadAppConfig({ ROLE: 'controller' }, cwd).admissionWebhook).toBeUndefined();
    expect(() => loadAppConfig({ ROLE: 'controller', ADMISSION_WEBHOOK: 'true' }, cwd)).toThrow(
      /ADMISSION_WEBHOOK needs the API’s Service .*ADMISSION_WEBHOOK_SERVICE/,
    );
    writeFileSync(join(cwd, '.cluster/pki/control-plane.crt'), 'x');
    writeFileSync(join(cwd, '.cluster/pki/control-plane.key'), 'x');
    expect(
      loadAppConfig({ ROLE: 'api', ADMISSION_WEBHOOK: 'true', ...service }, cwd).admissionWebhook,
    ).toBeUndefined();
    expect(() => loadAppConfig({ ROLE: 'api', ADMISSION_WEBHOOK_SERVICE: 'bad' }, cwd)).toThrow(
      /ADMISSION_WEBHOOK_SERVICE must be/,
    );
  });

  it('runs one role: ROLE all by default, controller or api; CONTROLLER only turns the reconciler off in all', () => {
    const cwd = emptyDir();
    expect(loadAppConfig({}, cwd)).toMatchObject({ role: 'all', controller: { enabled: true } });
    expect(loadAppConfig({ CONTROLLER: 'false' }, cwd)).toMatchObject({
      role: 'all',
      controller: { enabled: false },
    });
    expect(loadAppConfig({ ROLE: 'controller' }, cwd)).toMatchObject({
      role: 'controller',
      controller: { enabled: true },
    });
    expect(loadAppConfig({ ROLE: ' api ' }, cwd)).toMatchObject({
      role: 'api',
      controller: { enabled: false },
    });
    expect(loadAppConfig({ ROLE: 'api', CONTROLLER: 'false' }, cwd).controller.enabled).toBe(false);
    expect(() => loadAppConfig({ ROLE: 'api', CONTROLLER: 'true' }, cwd)).toThrow(
      /CONTROLLER=true contradicts ROLE=api/,
    );
    expect(() => loadAppConfig({ ROLE: 'controller', CONTROLLER: 'false' }, cwd)).toThrow(
      /CONTROLLER=false contradicts ROLE=controller/,
    );
    expect(() => loadAppConfig({ ROLE: 'web' }, cwd)).toThrow(
      'ROLE must be all, controller, api (got "web")',
    );
  });

  it.each([
    [{ KUBE_API_QPS: '0' }, /KUBE_API_QPS must be a positive number/],
    [{ KUBE_API_BURST: 'lots' }, /KUBE_API_BURST must be a positive number/],
    [{ INSTALL_CRD: 'yes please' }, /INSTALL_CRD must be true or false/],
    [
      { LEASE_DURATION_SECONDS: '11' },
      /LEASE_DURATION_SECONDS must be at least 2 seconds longer than LEASE_RENEW_DEADLINE_SECONDS/,
    ],
    [{ KUBE_API_HTTP2: 'h2' }, /KUBE_API_HTTP2 must be true or false/],
    [{ AUDIT_RETENTION_DAYS: '-1' }, /AUDIT_RETENTION_DAYS must be a positive number/],
    [{ AUDIT_QUEUE_LIMIT: 'none' }, /AUDIT_QUEUE_LIMIT must be a positive number/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT must be json or text/],
    [{ WATCH_NAMESPACE: 'Team_A' }, /WATCH_NAMESPACE must be a namespace name/],
    [{ WATCH_NAMESPACE: 'team-a,Team_B' }, /WATCH_NAMESPACE must be a namespace name \(got "Team_B"\)/],
    [{ RATE_LIMIT_RPS: '0' }, /RATE_LIMIT_RPS must be a positive number/],
    [{ TLS_CERT_FILE: '/nonexistent.crt' }, /TLS_CERT_FILE and TLS_KEY_FILE must be set together/],
    [{ TLS_CERT_FILE: '/nonexistent.crt', TLS_KEY_FILE: '/nonexistent.key' }, /TLS file does not exist/],
    [
      { LEASE_DURATION_SECONDS: '10' },
      /LEASE_RENEW_DEADLINE_SECONDS must be shorter than LEASE_DURATION_SECONDS/,
    ],
    [{ LEASE_RETRY_PERIOD_SECONDS: '10' }, /LEASE_RETRY_PERIOD_SECONDS must be shorter/],
    [{ LEASE_RENEW_DEADLINE_SECONDS: '-3' }, /LEASE_RENEW_DEADLINE_SECONDS must be a positive number/],
    [{ RESYNC_PERIOD_SECONDS: 'never' }, /RESYNC_PERIOD_SECONDS must be a positive number/],
    [{ RESYNC_PERIOD_SECONDS: '9999999999' }, /RESYNC_PERIOD_SECONDS must be at most 604800 seconds/],
    [{ LEASE_DURATION_SECONDS: '86400' }, /LEASE_DURATION_SECONDS must be at most 3600 seconds/],
    [
      { ALLOW_EPHEMERAL_AUDIT: 'maybe', KUBERNETES_SERVICE_HOST: '10.0.0.1' },
      /ALLOW_EPHEMERAL_AUDIT must be true or false/,
    ],
  ])('rejects %j', (env, message) => {
    expect(() => loadAppConfig(env, emptyDir())).toThrow(message);
  });

  it('uses kube-controller-manager’s lease timings and a 12 h resync unless told otherwise', () => {
    expect(loadAppConfig({}, emptyDir()).controller).toMatchObject({
      lease: { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      resyncPeriodMs: 12 * 3600 * 1000,
      tlsRecheckMs: 60_000,
      quotaWake: true,
    });
    expect(loadAppConfig({ QUOTA_WAKE: 'false' }, emptyDir()).controller.quotaWake).toBe(false);
    expect(
      loadAppConfig(
        {
          LEASE_DURATION_SECONDS: '6',
          LEASE_RENEW_DEADLINE_SECONDS: '4',
          LEASE_RETRY_PERIOD_SECONDS: '1',
          RESYNC_PERIOD_SECONDS: '60',
          TLS_SECRET_RECHECK_SECONDS: '2',
        },
        emptyDir(),
      ).controller,
    ).toMatchObject({
      lease: { durationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 1000 },
      resyncPeriodMs: 60_000,
      tlsRecheckMs: 2000,
    });
  });

  it('refuses, in a pod, a SQLite audit database on an emptyDir or the container filesystem, unless told it is fine', () => {
    const cwd = '/app';
    const inPod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', DATABASE_URL: 'file:./.data/audit.db' };
    const emptyDirMount = () =>
      [
        '1 0 0:1 / / rw - overlay overlay rw',
        '2 1 8:1 /var/lib/kubelet/pods/p/volumes/kubernetes.io~empty-dir/data /app/.data rw - ext4 /dev/sda1 rw',
      ].join('\n');
    const pvcMount = () =>
      [
        '1 0 0:1 / / rw - overlay overlay rw',
        '2 1 8:1 /var/lib/kubelet/pods/p/volumes/kubernetes.io~csi/pvc-1/mount /app/.data rw - ext4 /dev/sda1 rw',
      ].join('\n');
    expect(() => loadAppConfig(inPod, cwd, emptyDirMount)).toThrow(
      /SQLite file on an emptyDir volume at \/app\/.data.*ALLOW_EPHEMERAL_AUDIT=true/,
    );
    expect(() => loadAppConfig({ ...inPod, DATABASE_URL: 'file:/tmp/a.db' }, cwd, emptyDirMount)).toThrow(
      /container's own filesystem/,
    );
    expect(
      loadAppConfig({ ...inPod, ALLOW_EPHEMERAL_AUDIT: 'true' }, cwd, emptyDirMount).database.provider,
    ).toBe('sqlite');
    expect(loadAppConfig(inPod, cwd, pvcMount).database.provider).toBe('sqlite');
    expect(
      loadAppConfig({ ...inPod, DATABASE_URL: 'postgresql://db/audit' }, cwd, emptyDirMount).database
        .provider,
    ).toBe('postgresql');
    expect(
      loadAppConfig({ DATABASE_URL: 'file:./.data/audit.db' }, cwd, emptyDirMount).database.provider,
    ).toBe('sqlite');
  });

  it('serves plain HTTP only to this machine while TLS is on, and answers loopback hosts, unless told otherwise', () => {
    const defaults = loadAppConfig({}, emptyDir());
    expect(defaults.plainHttp).toBe('allow-loopback');
    expect(defaults.allowedHosts).toBeUndefined();
    const custom = loadAppConfig(
      { PLAIN_HTTP: 'redirect', ALLOWED_HOSTS: ' CP.example.com , *.apps.example.com,' },
      emptyDir(),
    );
    expect(custom.plainHttp).toBe('redirect');
    expect(custom.allowedHosts).toEqual(['cp.example.com', '*.apps.example.com']);
    expect(() => loadAppConfig({ PLAIN_HTTP: 'deny' }, emptyDir())).toThrow(
      new ConfigError('PLAIN_HTTP must be redirect, allow-loopback, allow (got "deny")'),
    );
    expect(() => loadAppConfig({ ALLOWED_HOSTS: 'https://cp.example.com' }, emptyDir())).toThrow(
      /^ALLOWED_HOSTS: "https:\/\/cp.example.com": expected a host name/,
    );
  });
});
