import { resolve } from 'node:path';
import { registerAs } from '@nestjs/config';
import type { ImageAllowlist } from '@ngx/nginx-api';
import type { PlainHttpPolicy } from '../transport/plain-http-policy.js';
import type { LogFormat } from '../logging/app-logger.js';
import { appEnv } from './app-env.js';
import type { AppRole } from './app-role.js';
import { authorizationSettings, type AuthorizationSettings } from './authorization-settings.js';
import { controllerEnabled, leaseTimings, type LeaseTimings } from './controller-settings.js';
import type { DatabaseTarget } from './database-target.js';
import { checkDurableAudit, readMountinfo } from './durable-audit.js';
import { readEnv, type Environment } from './env-readers.js';
import { LOCAL_CLUSTER, localClusterFile } from './local-cluster.js';
import { oidcSettings, type OidcSettings } from './oidc-settings.js';
import { tlsFiles, type TlsFiles } from './tls-files.js';
import {
  admissionWebhook,
  auditWebhook,
  type AdmissionWebhook,
  type AuditWebhook,
} from './webhook-settings.js';

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
  /**
   * Where traces go (OTEL_EXPORTER_OTLP_ENDPOINT); undefined: tracing is off, no SDK is registered and no span is
   * made (tracing/).
   */
  otlpEndpoint: string | undefined;
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
  tls: TlsFiles | undefined;
  /**
   * Who may post kube-apiserver's audit events to /controlplane/v1/audit/webhook: clients whose TLS certificate
   * the CA in `clientCaFile` signed, with one of `clientNames` as common name. Undefined: the endpoint refuses all.
   */
  auditWebhook: AuditWebhook | undefined;
  /**
   * The validating admission webhook for Nginxes this process registers with kube-apiserver (ADMISSION_WEBHOOK*):
   * `caFile` holds the CA that signed the serving certificate (the configuration's caBundle); `service` is how
   * kube-apiserver reaches the API in a cluster, else it calls https://127.0.0.1:<port> (ROLE=all on its host).
   * Registered by the roles that run the controller; ROLE=api only serves it. Undefined: not registered here
   * (ADMISSION_WEBHOOK=false, ROLE=api, no TLS or CA to register with, or ROLE=controller without a Service).
   */
  admissionWebhook: AdmissionWebhook | undefined;
  /**
   * kube-apiserver's audit log file to follow (KUBE_AUDIT_LOG_FILE, JSON lines), and where the position read is
   * kept between runs (KUBE_AUDIT_LOG_POSITION_FILE); undefined: none.
   */
  kubeAuditLog: { file: string; positionFile: string } | undefined;
  /** The notifications' routing file (NOTIFICATIONS_FILE), reloaded on change; undefined: no notifications. */
  notificationsFile: string | undefined;
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
    lease: LeaseTimings;
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
export { AUTHORIZATION_MODES } from './app-env.js';
export type { AuthorizationSettings } from './authorization-settings.js';
export type { AdmissionWebhookService } from './service-reference.js';
export { LOCAL_AUDIT_WEBHOOK_CLIENT } from './local-cluster.js';

/** Builds the configuration from environment variables, throwing ConfigError with a precise message. */
export function loadAppConfig(
  raw: Environment = process.env,
  cwd = process.cwd(),
  mountinfo: () => string = readMountinfo,
): AppConfig {
  const env = readEnv(appEnv(cwd), raw);
  const database = env.DATABASE_URL;
  checkDurableAudit(database, env.KUBERNETES_SERVICE_HOST !== undefined, raw, cwd, mountinfo);
  const tls = tlsFiles(env, cwd);
  const role = env.ROLE;
  return {
    role,
    host: env.HOST,
    port: env.PORT,
    kubeconfigPath: env.KUBECONFIG ?? localClusterFile(cwd, LOCAL_CLUSTER.kubeconfig),
    database,
    audit: {
      enabled: env.AUDIT,
      retentionDays: env.AUDIT_RETENTION_DAYS,
      queueLimit: env.AUDIT_QUEUE_LIMIT,
      observedHoldMs: env.AUDIT_OBSERVED_HOLD_SECONDS,
      timeline: env.AUDIT_TIMELINE,
      apiserverLossPollMs: env.AUDIT_APISERVER_LOSS_POLL_SECONDS,
    },
    logFormat: env.LOG_FORMAT,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    auth: {
      tokensFile: env.AUTH_TOKENS_FILE,
      tokens: env.AUTH_TOKENS,
      adminTokenPath: resolve(cwd, '.data/admin-token'),
      rateLimitPerSecond: env.RATE_LIMIT_RPS,
      anonymousRateLimitPerSecond: env.ANON_RATE_LIMIT_RPS,
      policyFile: env.AUTH_POLICY_FILE,
      oidc: oidcSettings(raw, cwd),
      tokenAudience: env.TOKEN_AUDIENCE,
      authorization: authorizationSettings(env),
    },
    limits: { watchesPerToken: env.MAX_WATCHES_PER_TOKEN, stallMs: env.STALLED_CLIENT_SECONDS },
    corsOrigins: env.CORS_ORIGINS,
    tls,
    auditWebhook: auditWebhook(env.AUDIT_WEBHOOK, raw, cwd, tls),
    admissionWebhook: admissionWebhook(env.ADMISSION_WEBHOOK, raw, cwd, tls, role),
    kubeAuditLog: env.KUBE_AUDIT_LOG_FILE
      ? { file: env.KUBE_AUDIT_LOG_FILE, positionFile: env.KUBE_AUDIT_LOG_POSITION_FILE }
      : undefined,
    notificationsFile: env.NOTIFICATIONS_FILE,
    plainHttp: env.PLAIN_HTTP,
    allowedHosts: env.ALLOWED_HOSTS,
    web: { mode: env.WEB_MODE, dir: env.WEB_DIR },
    kube: {
      qps: env.KUBE_API_QPS,
      burst: env.KUBE_API_BURST,
      requestTimeoutMs: env.KUBE_REQUEST_TIMEOUT_SECONDS,
      installCrd: env.INSTALL_CRD,
      http2: env.KUBE_API_HTTP2,
    },
    watchNamespaces: env.WATCH_NAMESPACE,
    imageAllowlist: env.IMAGE_ALLOWLIST,
    controller: {
      enabled: controllerEnabled(env.CONTROLLER, role),
      workers: env.CONTROLLER_WORKERS,
      burst: env.BURST_REPLICAS,
      leaderElection: env.LEADER_ELECTION,
      leaseNamespace: env.LEASE_NAMESPACE ?? env.WATCH_NAMESPACE?.[0] ?? 'default',
      lease: leaseTimings(env),
      resyncPeriodMs: env.RESYNC_PERIOD_SECONDS,
      tlsRecheckMs: env.TLS_SECRET_RECHECK_SECONDS,
      quotaWake: env.QUOTA_WAKE,
    },
  };
}

/** The `app` namespace of @nestjs/config: inject with `@Inject(appConfig.KEY) config: AppConfig`. */
export const appConfig = registerAs('app', (): AppConfig => loadAppConfig());
