import { registerAs } from '@nestjs/config';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { namespaceError, parseImageAllowlist, type ImageAllowlist } from '@ngx/nginx-api';
import { databaseTarget, type DatabaseTarget } from './database-target.js';
import { ephemeralSqliteStorage } from './sqlite-storage.js';
import { hostPatternError } from '../http/host-check.js';
import { ConfigError } from './config-error.js';
import { oidcSettings, type OidcSettings } from './oidc-settings.js';
import {
  PLAIN_HTTP_POLICIES,
  isPlainHttpPolicy,
  type PlainHttpPolicy,
} from '../transport/plain-http-policy.js';
import type { LogFormat } from '../logging/app-logger.js';
import { parseRole, roleParts, type AppRole } from './app-role.js';

export type WebMode = 'production' | 'development' | 'off';

/** Everything the process reads from its environment, validated once at start. */
export interface AppConfig {
  /** Which part of the product this process runs (ROLE, see app-role.ts). */
  role: AppRole;
  host: string;
  port: number;
  /** Kubeconfig file to use; undefined means @kubernetes/client-node's defaults (in-cluster, ~/.kube/config). */
  kubeconfigPath: string | undefined;
  database: DatabaseTarget;
  audit: {
    /** Keep the audit trail (off only to measure what it costs: AUDIT=false). */
    enabled: boolean;
    /** Reconcile records older than this are pruned (hourly). */
    retentionDays: number;
    /** Most records queued while the database is slow or away; beyond it they are dropped and counted. */
    queueLimit: number;
    /**
     * How long a change the informer saw waits for its audit event or our own record before it is recorded with
     * its actor unknown (AUDIT_OBSERVED_HOLD_SECONDS).
     */
    observedHoldMs: number;
    /**
     * Keep evidence for the timeline (Events, pod transitions, condition changes) and record changes the informer
     * alone saw (AUDIT_TIMELINE; off only to measure what it costs, or to count reconcile records alone).
     */
    timeline: boolean;
    /**
     * How often the leader reads kube-apiserver's count of audit events it failed to deliver to the webhook, to
     * record what was lost as a gap (AUDIT_APISERVER_LOSS_POLL_SECONDS).
     */
    apiserverLossPollMs: number;
  };
  logFormat: LogFormat;
  auth: {
    /** YAML/JSON file with `tokens: [{ name, role, token }]`. */
    tokensFile: string | undefined;
    /** Inline tokens, "name:role:token,…". */
    tokens: string | undefined;
    /** Where the generated admin token lives when no tokens are configured. */
    adminTokenPath: string;
    /** Requests per second one token may make on average (counted over 10 s windows); beyond it, 429. */
    rateLimitPerSecond: number;
    /** The same for requests without a valid token, per client address (401s, the public readiness probe). */
    anonymousRateLimitPerSecond: number;
    /** AUTH_POLICY_FILE: which role each user or group of an identity holds where (re-read when it changes). */
    policyFile: string | undefined;
    /** The OpenID provider whose tokens sign people in (OIDC_*); undefined when OIDC_ISSUER_URL is not set. */
    oidc: OidcSettings | undefined;
    /**
     * The audience a Kubernetes ServiceAccount token must be minted for to be accepted (TOKEN_AUDIENCE, default
     * nginx-control-plane: `kubectl create token SA --audience nginx-control-plane`); checked by a TokenReview.
     * `-` turns ServiceAccount tokens off.
     */
    tokenAudience: string | undefined;
    /** AUTHORIZATION and AUTHORIZATION_CACHE_SECONDS: who decides what a caller may do. */
    authorization: AuthorizationSettings;
  };
  /** What one caller may hold open: relayed watches per token, and how long a client may stall a stream. */
  limits: { watchesPerToken: number; stallMs: number };
  /** Origins allowed to call the API from a browser on another origin; none (CORS off) by default. */
  corsOrigins: string[];
  /** Certificate and key to answer TLS on the same port too (kubectl sends tokens only over TLS). */
  tls: { certFile: string; keyFile: string } | undefined;
  /**
   * Who may post kube-apiserver's audit events to /controlplane/v1/audit/webhook: clients whose TLS certificate
   * the CA in `clientCaFile` signed, with one of `clientNames` as common name. Undefined: the endpoint refuses all.
   */
  auditWebhook: { clientCaFile: string; clientNames: string[] } | undefined;
  /**
   * The validating admission webhook for Nginxes this process registers with kube-apiserver (ADMISSION_WEBHOOK*):
   * `caFile` holds the CA that signed the serving certificate (the configuration's caBundle); `service` is how
   * kube-apiserver reaches the API in a cluster, else it calls https://127.0.0.1:<port> (ROLE=all on its host).
   * Registered by the roles that run the controller; ROLE=api only serves it. Undefined: not registered here
   * (ADMISSION_WEBHOOK=false, ROLE=api, no TLS or CA to register with, or ROLE=controller without a Service).
   */
  admissionWebhook: { caFile: string; service: AdmissionWebhookService | undefined } | undefined;
  /**
   * kube-apiserver's audit log file to follow (KUBE_AUDIT_LOG_FILE, JSON lines), and where the position read is
   * kept between runs (KUBE_AUDIT_LOG_POSITION_FILE); undefined: none.
   */
  kubeAuditLog: { file: string; positionFile: string } | undefined;
  /** What plain HTTP gets while TLS is on (PLAIN_HTTP; see transport/plain-http-policy.ts). */
  plainHttp: PlainHttpPolicy;
  /** Host names the app answers for (ALLOWED_HOSTS, lower case; `*` for any); undefined: see http/host-check.ts. */
  allowedHosts: string[] | undefined;
  web: { mode: WebMode; dir: string };
  kube: {
    /** Client-side limit on requests to the API server (client-go's --kube-api-qps / --kube-api-burst). */
    qps: number;
    burst: number;
    /** Longest one request to the API server may take (watch streams excepted). */
    requestTimeoutMs: number;
    /** Talk to the API server over one multiplexed HTTP/2 connection instead of an HTTP/1.1 pool (https only). */
    http2: boolean;
    /** Install or upgrade the Nginx CRD at start (off where an admin applies deploy/crd). */
    installCrd: boolean;
  };
  /**
   * The namespaces this process watches and manages (informers, controller, cached reads, live updates), from
   * WATCH_NAMESPACE (one, or several separated by commas); undefined for the whole cluster. Lets a deployment run
   * with namespaced Roles, and tests run side by side.
   */
  watchNamespaces: readonly string[] | undefined;
  /**
   * The images an Nginx may run (IMAGE_ALLOWLIST), checked on every write and, with INSTALL_CRD, by the CRD's CEL
   * rules; undefined: any image.
   */
  imageAllowlist: ImageAllowlist | undefined;
  controller: {
    /** Reconcile in this process: ROLE=controller, and ROLE=all unless CONTROLLER=false. */
    enabled: boolean;
    workers: number;
    /** Most pods created or deleted per sync of one Nginx. */
    burst: number;
    leaderElection: boolean;
    leaseNamespace: string;
    /** The Lease's timings (client-go's LeaseDuration, RenewDeadline, RetryPeriod; kube-controller-manager's defaults). */
    lease: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
    /** How often every Nginx is reconciled even if nothing happened to it (kube-controller-manager: 12 h). */
    resyncPeriodMs: number;
    /** How often an Nginx with spec.tls looks for its Secret while its pods need nothing (60 s). */
    tlsRecheckMs: number;
    /**
     * Whether a ResourceQuota change that frees room wakes the Nginxes it refused at once (QUOTA_WAKE); off, they
     * wait out their retry backoff, as the ReplicaSet controller's do.
     */
    quotaWake: boolean;
  };
}

export { ConfigError } from './config-error.js';

export const AUTHORIZATION_MODES = ['roles', 'kubernetes'] as const;

/**
 * `roles`: our own roles (static tokens' roles, AUTH_POLICY_FILE for identities). `kubernetes`: the cluster's RBAC,
 * asked with a SubjectAccessReview per request for the caller's user and groups, its answers reused for
 * `cacheMs` (0: never), and writes sent to kube-apiserver impersonating the caller.
 */
export type AuthorizationSettings = { mode: 'roles' } | { mode: 'kubernetes'; cacheMs: number };

/** Longest a SubjectAccessReview's answer may be reused: kube-apiserver's own default for denials (30 s) is 3× ours. */
const MAX_AUTHORIZATION_CACHE_SECONDS = 300;

function authorizationSettings(env: Environment): AuthorizationSettings {
  const mode = env.AUTHORIZATION?.trim() || 'roles';
  if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode))
    throw new ConfigError(
      `AUTHORIZATION must be ${AUTHORIZATION_MODES.join(' or ')} (got "${env.AUTHORIZATION}")`,
    );
  const raw = env.AUTHORIZATION_CACHE_SECONDS;
  const seconds = raw === undefined || raw.trim() === '' ? 10 : Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_AUTHORIZATION_CACHE_SECONDS)
    throw new ConfigError(
      `AUTHORIZATION_CACHE_SECONDS must be a number of seconds from 0 to ${MAX_AUTHORIZATION_CACHE_SECONDS} (got "${raw}")`,
    );
  if (mode === 'roles') return { mode };
  if (env.AUTH_POLICY_FILE?.trim())
    throw new ConfigError(
      'AUTH_POLICY_FILE grants our roles, which AUTHORIZATION=kubernetes does not use: the cluster’s RBAC decides; unset one of them',
    );
  return { mode: 'kubernetes', cacheMs: Math.round(seconds * 1000) };
}

type Environment = Record<string, string | undefined>;

const LOCAL_CLUSTER_KUBECONFIG = '.cluster/kubeconfig';
/** The serving certificate tools/cluster/pki.sh makes for this app, signed by the local cluster's CA. */
const LOCAL_CLUSTER_TLS = {
  certFile: '.cluster/pki/control-plane.crt',
  keyFile: '.cluster/pki/control-plane.key',
};

/** TLS_CERT_FILE and TLS_KEY_FILE (both or neither), else the local cluster's certificate when it exists; TLS=false for none. */
function tlsFiles(env: Environment, cwd: string): AppConfig['tls'] {
  const cert = env.TLS_CERT_FILE?.trim();
  const key = env.TLS_KEY_FILE?.trim();
  if (cert || key) {
    if (!cert || !key) throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
    const files = { certFile: resolve(cwd, cert), keyFile: resolve(cwd, key) };
    for (const file of Object.values(files))
      if (!existsSync(file)) throw new ConfigError(`TLS file does not exist: ${file}`);
    return files;
  }
  if (env.TLS === 'false') return undefined;
  const local = {
    certFile: resolve(cwd, LOCAL_CLUSTER_TLS.certFile),
    keyFile: resolve(cwd, LOCAL_CLUSTER_TLS.keyFile),
  };
  return existsSync(local.certFile) && existsSync(local.keyFile) ? local : undefined;
}

/** The local cluster's CA (tools/cluster/pki.sh), which signs kube-apiserver's audit webhook client certificate. */
const LOCAL_CLUSTER_CA = '.cluster/pki/ca.crt';
/** The common name of that certificate. */
export const LOCAL_AUDIT_WEBHOOK_CLIENT = 'kube-apiserver-audit';

/**
 * AUDIT_WEBHOOK_CLIENT_CA_FILE (needs TLS), else the local cluster's CA when TLS is on and it exists;
 * AUDIT_WEBHOOK=false for none. AUDIT_WEBHOOK_CLIENT_NAMES: the common names allowed (comma-separated).
 */
function auditWebhook(env: Environment, cwd: string, tls: AppConfig['tls']): AppConfig['auditWebhook'] {
  if (!parseBoolean('AUDIT_WEBHOOK', env.AUDIT_WEBHOOK, true)) return undefined;
  const names = (env.AUDIT_WEBHOOK_CLIENT_NAMES ?? LOCAL_AUDIT_WEBHOOK_CLIENT)
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new ConfigError('AUDIT_WEBHOOK_CLIENT_NAMES must name at least one client');
  const given = env.AUDIT_WEBHOOK_CLIENT_CA_FILE?.trim();
  if (given) {
    const file = resolve(cwd, given);
    if (!existsSync(file)) throw new ConfigError(`AUDIT_WEBHOOK_CLIENT_CA_FILE does not exist: ${file}`);
    if (!tls)
      throw new ConfigError('AUDIT_WEBHOOK_CLIENT_CA_FILE needs TLS (client certificates are a TLS matter)');
    return { clientCaFile: file, clientNames: names };
  }
  const local = resolve(cwd, LOCAL_CLUSTER_CA);
  return tls && existsSync(local) ? { clientCaFile: local, clientNames: names } : undefined;
}

export interface AdmissionWebhookService {
  namespace: string;
  name: string;
  port: number;
}

/** ADMISSION_WEBHOOK_SERVICE: `namespace/name` or `namespace/name:port` (443 when not given). */
function admissionWebhookService(raw: string | undefined): AdmissionWebhookService | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const match = /^([^/:\s]+)\/([^/:\s]+)(?::(\d{1,5}))?$/.exec(value);
  const port = match?.[3] === undefined ? 443 : Number(match[3]);
  const problem = match ? (namespaceError(match[1]!) ?? namespaceError(match[2]!)) : undefined;
  if (!match || problem || port < 1 || port > 65535)
    throw new ConfigError(
      `ADMISSION_WEBHOOK_SERVICE must be namespace/name or namespace/name:port (got "${value}")${problem ? `: ${problem}` : ''}`,
    );
  return { namespace: match[1]!, name: match[2]!, port };
}

/**
 * ADMISSION_WEBHOOK (default true): register the admission webhook, with ADMISSION_WEBHOOK_CA_FILE as its CA
 * bundle, else the local cluster's CA when it exists. ROLE=all registers itself (it needs TLS: kube-apiserver calls
 * webhooks over https only); ROLE=controller registers the API's Service (ADMISSION_WEBHOOK_SERVICE, required);
 * ROLE=api registers nothing. Left at its default, the webhook is simply not registered when something is
 * missing; ADMISSION_WEBHOOK=true then says what is.
 */
function admissionWebhook(
  env: Environment,
  cwd: string,
  tls: AppConfig['tls'],
  role: AppRole,
): AppConfig['admissionWebhook'] {
  const explicit = env.ADMISSION_WEBHOOK?.trim() !== undefined && env.ADMISSION_WEBHOOK.trim() !== '';
  if (!parseBoolean('ADMISSION_WEBHOOK', env.ADMISSION_WEBHOOK, true)) return undefined;
  const service = admissionWebhookService(env.ADMISSION_WEBHOOK_SERVICE);
  if (role === 'api') return undefined;
  const given = env.ADMISSION_WEBHOOK_CA_FILE?.trim();
  const caFile = resolve(cwd, given || LOCAL_CLUSTER_CA);
  const missing =
    role === 'controller' && !service
      ? 'the API’s Service to register (ROLE=controller does not serve the webhook): set ADMISSION_WEBHOOK_SERVICE'
      : role === 'all' && !tls
        ? 'TLS (kube-apiserver calls webhooks over https only): set TLS_CERT_FILE and TLS_KEY_FILE'
        : !existsSync(caFile)
          ? `the CA that signed the serving certificate: ${given ? `ADMISSION_WEBHOOK_CA_FILE does not exist: ${caFile}` : 'set ADMISSION_WEBHOOK_CA_FILE'}`
          : undefined;
  if (!missing) return { caFile, service };
  if (explicit || given)
    throw new ConfigError(`ADMISSION_WEBHOOK needs ${missing} (or set ADMISSION_WEBHOOK=false)`);
  return undefined;
}

/**
 * CONTROLLER (default true) turns the reconciler off in a ROLE=all process (an API next to a controller that runs
 * elsewhere, as the tests run it). The other roles fix it: ROLE=api never reconciles, ROLE=controller always does.
 */
function controllerEnabled(env: Environment, role: AppRole): boolean {
  const explicit = env.CONTROLLER?.trim() ? parseBoolean('CONTROLLER', env.CONTROLLER, true) : undefined;
  if (role === 'all') return explicit ?? true;
  if (explicit !== undefined && explicit !== roleParts(role).controller)
    throw new ConfigError(
      `CONTROLLER=${String(explicit)} contradicts ROLE=${role}: CONTROLLER applies to ROLE=all only; unset it`,
    );
  return roleParts(role).controller;
}

function parsePlainHttp(raw: string | undefined): PlainHttpPolicy {
  const policy = raw?.trim() || 'allow-loopback';
  if (isPlainHttpPolicy(policy)) return policy;
  throw new ConfigError(`PLAIN_HTTP must be ${PLAIN_HTTP_POLICIES.join(', ')} (got "${raw}")`);
}

function parseAllowedHosts(raw: string | undefined): string[] | undefined {
  const hosts = (raw ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
  if (hosts.length === 0) return undefined;
  for (const host of hosts) {
    const problem = hostPatternError(host);
    if (problem) throw new ConfigError(`ALLOWED_HOSTS: "${host}": ${problem}`);
  }
  return hosts;
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 3000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${raw}")`);
  }
  return port;
}

function parsePositive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`${name} must be a positive number (got "${raw}")`);
  return value;
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  const value = raw?.trim().toLowerCase();
  if (!value) return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function parseWebMode(raw: string | undefined): WebMode {
  const mode = raw?.trim() || 'production';
  if (mode === 'production' || mode === 'development' || mode === 'off') return mode;
  throw new ConfigError(`WEB_MODE must be production, development or off (got "${raw}")`);
}

function parseLogFormat(raw: string | undefined): LogFormat {
  const format = raw?.trim() || 'json';
  if (format === 'json' || format === 'text') return format;
  throw new ConfigError(`LOG_FORMAT must be json or text (got "${raw}")`);
}

function imageAllowlist(raw: string | undefined): ImageAllowlist | undefined {
  try {
    return parseImageAllowlist(raw);
  } catch (error) {
    throw new ConfigError(`IMAGE_ALLOWLIST: ${(error as Error).message}`);
  }
}

function kubeconfigPath(env: Environment, cwd: string): string | undefined {
  const fromEnv = env.KUBECONFIG?.trim();
  if (fromEnv) {
    // KUBECONFIG may list several files; client-node merges them. Each must exist to be a usable choice.
    const missing = fromEnv.split(':').filter((file) => file && !existsSync(file));
    if (missing.length > 0)
      throw new ConfigError(`KUBECONFIG names a file that does not exist: ${missing.join(', ')}`);
    return fromEnv;
  }
  const local = resolve(cwd, LOCAL_CLUSTER_KUBECONFIG);
  return existsSync(local) ? local : undefined;
}

/** One namespace name, or several separated by commas: the distinct names in order, or undefined for none. */
function parseNamespaces(name: string, raw: string | undefined): readonly string[] | undefined {
  const values = (raw ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  if (values.length === 0) return undefined;
  for (const value of values) {
    const problem = namespaceError(value);
    if (problem) throw new ConfigError(`${name} must be a namespace name (got "${value}"): ${problem}`);
  }
  return [...new Set(values)];
}

/** A positive duration in seconds, at most `max` (timers cannot wait longer than about 24 days); in ms. */
function parseSeconds(name: string, raw: string | undefined, fallback: number, max: number): number {
  const seconds = parsePositive(name, raw, fallback);
  if (seconds > max) throw new ConfigError(`${name} must be at most ${max} seconds (got "${raw}")`);
  return seconds * 1000;
}

function leaseTimings(env: Environment): AppConfig['controller']['lease'] {
  const seconds = (name: string, fallback: number) => parseSeconds(name, env[name], fallback, 3600);
  const lease = {
    durationMs: seconds('LEASE_DURATION_SECONDS', 15),
    renewDeadlineMs: seconds('LEASE_RENEW_DEADLINE_SECONDS', 10),
    retryPeriodMs: seconds('LEASE_RETRY_PERIOD_SECONDS', 2),
  };
  if (lease.renewDeadlineMs >= lease.durationMs)
    throw new ConfigError('LEASE_RENEW_DEADLINE_SECONDS must be shorter than LEASE_DURATION_SECONDS');
  if (lease.retryPeriodMs >= lease.renewDeadlineMs)
    throw new ConfigError('LEASE_RETRY_PERIOD_SECONDS must be shorter than LEASE_RENEW_DEADLINE_SECONDS');
  // The gap holds a leader's last writes: 1 s to reach kube-apiserver and at least 1 s of server deadline.
  if (lease.durationMs - lease.renewDeadlineMs < 2000)
    throw new ConfigError(
      'LEASE_DURATION_SECONDS must be at least 2 seconds longer than LEASE_RENEW_DEADLINE_SECONDS',
    );
  return lease;
}

const readMountinfo = () => {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return '';
  }
};

/**
 * Refuses, in a cluster (a pod: KUBERNETES_SERVICE_HOST is set), a SQLite audit database that dies with the pod:
 * every replica would keep a trail of its own and lose it on restart. ALLOW_EPHEMERAL_AUDIT=true says it is fine.
 */
function checkDurableAudit(database: DatabaseTarget, env: Environment, cwd: string, mountinfo: () => string) {
  if (database.provider !== 'sqlite' || !env.KUBERNETES_SERVICE_HOST?.trim()) return;
  if (parseBoolean('ALLOW_EPHEMERAL_AUDIT', env.ALLOW_EPHEMERAL_AUDIT, false)) return;
  const path = database.url.slice('file:'.length);
  if (path === ':memory:' || path === '') return;
  const where = ephemeralSqliteStorage(resolve(cwd, path), mountinfo());
  if (where)
    throw new ConfigError(
      `DATABASE_URL is a SQLite file on ${where}: in a cluster each replica would keep its own audit trail and ` +
        'lose it with the pod. Give DATABASE_URL a PostgreSQL URL (deploy/ does), or set ALLOW_EPHEMERAL_AUDIT=true',
    );
}

/** Builds the configuration from environment variables, throwing ConfigError with a precise message. */
export function loadAppConfig(
  env: Environment = process.env,
  cwd = process.cwd(),
  mountinfo: () => string = readMountinfo,
): AppConfig {
  let database: DatabaseTarget;
  try {
    database = databaseTarget(env.DATABASE_URL);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  checkDurableAudit(database, env, cwd, mountinfo);
  const tls = tlsFiles(env, cwd);
  const role = parseRole(env.ROLE);
  const watchNamespaces = parseNamespaces('WATCH_NAMESPACE', env.WATCH_NAMESPACE);
  return {
    role,
    host: env.HOST?.trim() || '127.0.0.1',
    port: parsePort(env.PORT),
    kubeconfigPath: kubeconfigPath(env, cwd),
    database,
    audit: {
      enabled: parseBoolean('AUDIT', env.AUDIT, true),
      retentionDays: parsePositive('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 30),
      queueLimit: Math.ceil(parsePositive('AUDIT_QUEUE_LIMIT', env.AUDIT_QUEUE_LIMIT, 10_000)),
      observedHoldMs: parseSeconds('AUDIT_OBSERVED_HOLD_SECONDS', env.AUDIT_OBSERVED_HOLD_SECONDS, 10, 3600),
      timeline: parseBoolean('AUDIT_TIMELINE', env.AUDIT_TIMELINE, true),
      apiserverLossPollMs: parseSeconds(
        'AUDIT_APISERVER_LOSS_POLL_SECONDS',
        env.AUDIT_APISERVER_LOSS_POLL_SECONDS,
        15,
        3600,
      ),
    },
    logFormat: parseLogFormat(env.LOG_FORMAT),
    auth: {
      tokensFile: env.AUTH_TOKENS_FILE?.trim() ? resolve(cwd, env.AUTH_TOKENS_FILE.trim()) : undefined,
      tokens: env.AUTH_TOKENS?.trim() || undefined,
      adminTokenPath: resolve(cwd, '.data/admin-token'),
      rateLimitPerSecond: parsePositive('RATE_LIMIT_RPS', env.RATE_LIMIT_RPS, 20),
      anonymousRateLimitPerSecond: parsePositive('ANON_RATE_LIMIT_RPS', env.ANON_RATE_LIMIT_RPS, 10),
      policyFile: env.AUTH_POLICY_FILE?.trim() ? resolve(cwd, env.AUTH_POLICY_FILE.trim()) : undefined,
      oidc: oidcSettings(env, cwd),
      tokenAudience:
        env.TOKEN_AUDIENCE?.trim() === '-' ? undefined : env.TOKEN_AUDIENCE?.trim() || 'nginx-control-plane',
      authorization: authorizationSettings(env),
    },
    limits: {
      watchesPerToken: Math.ceil(parsePositive('MAX_WATCHES_PER_TOKEN', env.MAX_WATCHES_PER_TOKEN, 10)),
      stallMs: parseSeconds('STALLED_CLIENT_SECONDS', env.STALLED_CLIENT_SECONDS, 60, 3600),
    },
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    tls,
    auditWebhook: auditWebhook(env, cwd, tls),
    admissionWebhook: admissionWebhook(env, cwd, tls, role),
    kubeAuditLog: env.KUBE_AUDIT_LOG_FILE?.trim()
      ? {
          file: resolve(cwd, env.KUBE_AUDIT_LOG_FILE.trim()),
          positionFile: resolve(
            cwd,
            env.KUBE_AUDIT_LOG_POSITION_FILE?.trim() || '.data/kube-audit-log.position',
          ),
        }
      : undefined,
    plainHttp: parsePlainHttp(env.PLAIN_HTTP),
    allowedHosts: parseAllowedHosts(env.ALLOWED_HOSTS),
    web: { mode: parseWebMode(env.WEB_MODE), dir: resolve(cwd, env.WEB_DIR?.trim() || 'apps/web') },
    kube: {
      qps: parsePositive('KUBE_API_QPS', env.KUBE_API_QPS, 50),
      burst: Math.ceil(parsePositive('KUBE_API_BURST', env.KUBE_API_BURST, 100)),
      requestTimeoutMs:
        parsePositive('KUBE_REQUEST_TIMEOUT_SECONDS', env.KUBE_REQUEST_TIMEOUT_SECONDS, 30) * 1000,
      installCrd: parseBoolean('INSTALL_CRD', env.INSTALL_CRD, true),
      http2: parseBoolean('KUBE_API_HTTP2', env.KUBE_API_HTTP2, false),
    },
    watchNamespaces,
    imageAllowlist: imageAllowlist(env.IMAGE_ALLOWLIST),
    controller: {
      enabled: controllerEnabled(env, role),
      workers: Math.ceil(parsePositive('CONTROLLER_WORKERS', env.CONTROLLER_WORKERS, 4)),
      burst: Math.ceil(parsePositive('BURST_REPLICAS', env.BURST_REPLICAS, 500)),
      leaderElection: parseBoolean('LEADER_ELECTION', env.LEADER_ELECTION, true),
      leaseNamespace: env.LEASE_NAMESPACE?.trim() || watchNamespaces?.[0] || 'default',
      lease: leaseTimings(env),
      resyncPeriodMs: parseSeconds(
        'RESYNC_PERIOD_SECONDS',
        env.RESYNC_PERIOD_SECONDS,
        12 * 3600,
        7 * 24 * 3600,
      ),
      tlsRecheckMs: parseSeconds('TLS_SECRET_RECHECK_SECONDS', env.TLS_SECRET_RECHECK_SECONDS, 60, 3600),
      quotaWake: parseBoolean('QUOTA_WAKE', env.QUOTA_WAKE, true),
    },
  };
}

/** The `app` namespace of @nestjs/config: inject with `@Inject(appConfig.KEY) config: AppConfig`. */
export const appConfig = registerAs('app', (): AppConfig => loadAppConfig());
