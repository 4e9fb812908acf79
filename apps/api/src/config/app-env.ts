import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { parseImageAllowlist } from '@ngx/nginx-api';
import { databaseTarget } from './database-target.js';
import { hostPatternError } from '../http/host-check.js';
import { PLAIN_HTTP_POLICIES } from '../transport/plain-http-policy.js';
import { APP_ROLES } from './app-role.js';
import { serviceReference } from './service-reference.js';
import { LOCAL_AUDIT_WEBHOOK_CLIENT } from './local-cluster.js';
import {
  asIs,
  commaSeparated,
  count,
  envSchema,
  flag,
  integer,
  labelled,
  list,
  named,
  namespaces,
  oneOf,
  parsedBy,
  path,
  positive,
  refusing,
  resolvedPath,
  seconds,
  secondsUpTo,
  setting,
  text,
} from './env-readers.js';

export const AUTHORIZATION_MODES = ['roles', 'kubernetes'] as const;

/** Longest a SubjectAccessReview's answer may be reused: kube-apiserver's own default for denials (30 s) is 3× ours. */
const MAX_AUTHORIZATION_CACHE_SECONDS = 300;

/** The JWS algorithms a token may be signed with, as kube-apiserver's `--oidc-signing-algs` accepts them. */
export const SIGNING_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The text of a file (trimmed), resolved against `cwd`; undefined when unset. */
const fileText = (cwd: string) =>
  setting(
    parsedBy((file) => (file === undefined ? undefined : readFileSync(resolve(cwd, file), 'utf8').trim())),
    (problem, raw, name) => `${name}: cannot read ${raw?.trim()}: ${problem}`,
  );

/** An https URL (`allowed` may accept others too), as given; undefined when unset. */
const httpsUrl = (must: string, allowed: (url: URL) => boolean = () => false) =>
  setting(
    refusing<string>((value) => {
      if (!URL.canParse(value)) return `is not a URL: ${value}`;
      const url = new URL(value);
      return url.protocol === 'https:' || allowed(url) ? undefined : `must be https ${must}: ${value}`;
    }).optional(),
    named,
  );

/** An http or https URL, as given; undefined when unset. */
const httpUrl = () =>
  setting(
    refusing<string>((value) =>
      URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol)
        ? undefined
        : `must be an http or https URL: ${value}`,
    ).optional(),
    named,
  );

/** Files that do not exist among a `:`-separated list (relative ones from the process's directory). */
const missingFiles = (files: string) => {
  const missing = files.split(':').filter((file) => file && !existsSync(file));
  return missing.length > 0 ? `names a file that does not exist: ${missing.join(', ')}` : undefined;
};

/**
 * Every variable the process reads at start, in the order they are checked: a ConfigError names the first one
 * refused. Paths are resolved against `cwd`. Some groups below are read only when they apply.
 */
export const appEnv = (cwd: string) =>
  envSchema({
    DATABASE_URL: setting(parsedBy(databaseTarget), asIs),
    /** Set by the kubelet in every pod: this process runs in a cluster. */
    KUBERNETES_SERVICE_HOST: text(),
    TLS_CERT_FILE: path(cwd),
    TLS_KEY_FILE: path(cwd),
    /** Only the exact value `false` turns the local cluster's certificate off. */
    TLS: z.string().optional(),
    ROLE: oneOf(APP_ROLES, 'all'),
    /** One namespace, or several separated by commas; undefined for the whole cluster. */
    WATCH_NAMESPACE: namespaces(),
    HOST: text('127.0.0.1'),
    PORT: integer(3000, 0, 65535),
    KUBECONFIG: setting(refusing(missingFiles).optional(), named),
    AUDIT: flag(true),
    AUDIT_RETENTION_DAYS: positive(30),
    AUDIT_QUEUE_LIMIT: count(10_000),
    AUDIT_OBSERVED_HOLD_SECONDS: seconds(10, 3600),
    AUDIT_TIMELINE: flag(true),
    AUDIT_APISERVER_LOSS_POLL_SECONDS: seconds(15, 3600),
    LOG_FORMAT: oneOf(['json', 'text'], 'json', 'json or text'),
    /** Unset: no traces. Set: spans are exported over OTLP/HTTP; the SDK reads the other OTEL_* variables. */
    OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl(),
    AUTH_TOKENS_FILE: path(cwd),
    AUTH_TOKENS: text(),
    RATE_LIMIT_RPS: positive(20),
    ANON_RATE_LIMIT_RPS: positive(10),
    AUTH_POLICY_FILE: path(cwd),
    /** `-` turns ServiceAccount tokens off. */
    TOKEN_AUDIENCE: setting(
      z
        .string()
        .default('nginx-control-plane')
        .transform((audience) => (audience === '-' ? undefined : audience)),
    ),
    AUTHORIZATION: oneOf(AUTHORIZATION_MODES, 'roles', AUTHORIZATION_MODES.join(' or ')),
    AUTHORIZATION_CACHE_SECONDS: secondsUpTo(10, MAX_AUTHORIZATION_CACHE_SECONDS),
    MAX_WATCHES_PER_TOKEN: count(10),
    STALLED_CLIENT_SECONDS: seconds(60, 3600),
    CORS_ORIGINS: list(),
    AUDIT_WEBHOOK: flag(true),
    /** Unset: registered when it can be; set: must be (true) or must not be (false). */
    ADMISSION_WEBHOOK: flag(),
    KUBE_AUDIT_LOG_FILE: path(cwd),
    KUBE_AUDIT_LOG_POSITION_FILE: path(cwd, '.data/kube-audit-log.position'),
    PLAIN_HTTP: oneOf(PLAIN_HTTP_POLICIES, 'allow-loopback'),
    /** Lower case; undefined when none are named. */
    ALLOWED_HOSTS: setting(
      commaSeparated()
        .transform((hosts) => hosts.map((host) => host.toLowerCase()))
        .pipe(
          refusing<string[]>((hosts) => {
            const host = hosts.find(hostPatternError);
            return host && `"${host}": ${hostPatternError(host)}`;
          }),
        )
        .transform((hosts) => (hosts.length > 0 ? hosts : undefined)),
      labelled,
      { trim: false },
    ),
    WEB_MODE: oneOf(['production', 'development', 'off'], 'production', 'production, development or off'),
    WEB_DIR: path(cwd, 'apps/web'),
    KUBE_API_QPS: positive(50),
    KUBE_API_BURST: count(100),
    KUBE_REQUEST_TIMEOUT_SECONDS: seconds(30),
    INSTALL_CRD: flag(true),
    KUBE_API_HTTP2: flag(false),
    IMAGE_ALLOWLIST: setting(parsedBy(parseImageAllowlist), labelled),
    /** Unset: the role decides. */
    CONTROLLER: flag(),
    CONTROLLER_WORKERS: count(4),
    BURST_REPLICAS: count(500),
    LEADER_ELECTION: flag(true),
    LEASE_NAMESPACE: text(),
    LEASE_DURATION_SECONDS: seconds(15, 3600),
    LEASE_RENEW_DEADLINE_SECONDS: seconds(10, 3600),
    LEASE_RETRY_PERIOD_SECONDS: seconds(2, 3600),
    RESYNC_PERIOD_SECONDS: seconds(12 * 3600, 7 * 24 * 3600),
    TLS_SECRET_RECHECK_SECONDS: seconds(60, 3600),
    QUOTA_WAKE: flag(true),
    /** The notifications' routing file (docs/operations.md, "Notifications"); unset: none are sent. */
    NOTIFICATIONS_FILE: path(cwd),
  });
export type AppEnv = z.output<ReturnType<typeof appEnv>>;

/** Read in a pod with a SQLite audit database only. */
export const ephemeralAuditEnv = envSchema({ ALLOW_EPHEMERAL_AUDIT: flag(false) });

/** Read when AUDIT_WEBHOOK is on. */
export const auditWebhookEnv = (cwd: string) =>
  envSchema({
    AUDIT_WEBHOOK_CLIENT_NAMES: setting(
      commaSeparated(LOCAL_AUDIT_WEBHOOK_CLIENT).refine(
        (names) => names.length > 0,
        'must name at least one client',
      ),
      named,
      { trim: false },
    ),
    AUDIT_WEBHOOK_CLIENT_CA_FILE: setting(
      resolvedPath(cwd).pipe(
        refusing<string | undefined>((file) =>
          file === undefined || existsSync(file) ? undefined : `does not exist: ${file}`,
        ),
      ),
      named,
    ),
  });

/** Read when ADMISSION_WEBHOOK is on. */
export const admissionWebhookEnv = (cwd: string) =>
  envSchema({
    ADMISSION_WEBHOOK_SERVICE: setting(
      parsedBy((value) => (value === undefined ? undefined : serviceReference(value))),
      named,
    ),
    ADMISSION_WEBHOOK_CA_FILE: path(cwd),
  });

/** Read when OIDC_ISSUER_URL is set. */
export const oidcEnv = (cwd: string) =>
  envSchema({
    OIDC_ISSUER_URL: httpsUrl('(as kube-apiserver requires)'),
    OIDC_CLIENT_ID: setting(z.string('is required with OIDC_ISSUER_URL'), named),
    OIDC_USERNAME_CLAIM: text('sub'),
    /** Blank is a prefix too (none), as `-` is; unset, the claim decides. */
    OIDC_USERNAME_PREFIX: setting(
      z
        .string()
        .optional()
        .transform((prefix) => (prefix?.trim() === '-' ? '' : prefix?.trim())),
      undefined,
      { trim: false },
    ),
    OIDC_SIGNING_ALGS: setting(
      z
        .string()
        .default('RS256')
        .transform((algorithms) => algorithms.split(',').map((algorithm) => algorithm.trim()))
        .pipe(
          refusing<string[]>((algorithms) => {
            const unknown = algorithms.filter(
              (alg) => !(SIGNING_ALGORITHMS as readonly string[]).includes(alg),
            );
            return unknown.length > 0
              ? `${unknown.join(', ')} not accepted (one of ${SIGNING_ALGORITHMS.join(', ')})`
              : undefined;
          }),
        )
        .transform((algorithms) => algorithms as SigningAlgorithm[]),
      labelled,
    ),
    OIDC_CLIENT_SECRET_FILE: fileText(cwd),
    OIDC_SCOPES: setting(
      z
        .string()
        .default('openid profile email groups offline_access')
        .transform((scopes) => scopes.split(/[\s,]+/)),
    ),
    OIDC_GROUPS_CLAIM: text(),
    OIDC_GROUPS_PREFIX: text(''),
    OIDC_CA_FILE: fileText(cwd),
    OIDC_CLOCK_SKEW_SECONDS: oidcSeconds(30, 300),
    OIDC_JWKS_CACHE_SECONDS: oidcSeconds(300, 86_400),
    OIDC_REDIRECT_URL: httpsUrl(
      '(or on localhost)',
      (url) => url.hostname === 'localhost' || url.hostname === '127.0.0.1',
    ),
    SESSION_MAX_AGE_SECONDS: oidcSeconds(8 * 3600, 7 * 86_400),
  });

function oidcSeconds(fallback: number, max: number) {
  return secondsUpTo(
    fallback,
    max,
    (_problem, raw, name) => `${name} must be a number of seconds from 0 to ${max}: ${raw}`,
  );
}
