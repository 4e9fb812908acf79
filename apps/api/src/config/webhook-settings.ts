import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { admissionWebhookEnv, auditWebhookEnv } from './app-env.js';
import type { AppRole } from './app-role.js';
import { ConfigError } from './config-error.js';
import { readEnv, type Environment } from './env-readers.js';
import { LOCAL_CLUSTER, localClusterFile } from './local-cluster.js';
import type { AdmissionWebhookService } from './service-reference.js';
import type { TlsFiles } from './tls-files.js';

/**
 * Who may post kube-apiserver's audit events to /controlplane/v1/audit/webhook: clients whose TLS certificate the
 * CA in `clientCaFile` signed, with one of `clientNames` as common name.
 */
export interface AuditWebhook {
  clientCaFile: string;
  clientNames: string[];
}

/**
 * The validating admission webhook for Nginxes this process registers with kube-apiserver: `caFile` holds the CA
 * that signed the serving certificate (the configuration's caBundle); `service` is how kube-apiserver reaches the
 * API in a cluster, else it calls https://127.0.0.1:<port> (ROLE=all on its host).
 */
export interface AdmissionWebhook {
  caFile: string;
  service: AdmissionWebhookService | undefined;
}

/**
 * With AUDIT_WEBHOOK on: AUDIT_WEBHOOK_CLIENT_CA_FILE (needs TLS), else the local cluster's CA when TLS is on and
 * it exists. AUDIT_WEBHOOK_CLIENT_NAMES: the common names allowed (comma-separated).
 */
export function auditWebhook(
  enabled: boolean,
  env: Environment,
  cwd: string,
  tls: TlsFiles | undefined,
): AuditWebhook | undefined {
  if (!enabled) return undefined;
  const settings = readEnv(auditWebhookEnv(cwd), env);
  const clientNames = settings.AUDIT_WEBHOOK_CLIENT_NAMES;
  const given = settings.AUDIT_WEBHOOK_CLIENT_CA_FILE;
  if (given) {
    if (!tls)
      throw new ConfigError('AUDIT_WEBHOOK_CLIENT_CA_FILE needs TLS (client certificates are a TLS matter)');
    return { clientCaFile: given, clientNames };
  }
  const local = localClusterFile(cwd, LOCAL_CLUSTER.ca);
  return tls && local ? { clientCaFile: local, clientNames } : undefined;
}

/**
 * ADMISSION_WEBHOOK (`requested`; unset counts as on): register the admission webhook, with
 * ADMISSION_WEBHOOK_CA_FILE as its CA bundle, else the local cluster's CA when it exists. ROLE=all registers
 * itself (it needs TLS: kube-apiserver calls webhooks over https only); ROLE=controller registers the API's
 * Service (ADMISSION_WEBHOOK_SERVICE, required); ROLE=api registers nothing. Left unset, the webhook is simply not
 * registered when something is missing; ADMISSION_WEBHOOK=true then says what is.
 */
export function admissionWebhook(
  requested: boolean | undefined,
  env: Environment,
  cwd: string,
  tls: TlsFiles | undefined,
  role: AppRole,
): AdmissionWebhook | undefined {
  if (requested === false) return undefined;
  const settings = readEnv(admissionWebhookEnv(cwd), env);
  const service = settings.ADMISSION_WEBHOOK_SERVICE;
  if (role === 'api') return undefined;
  const given = settings.ADMISSION_WEBHOOK_CA_FILE;
  const caFile = given ?? resolve(cwd, LOCAL_CLUSTER.ca);
  const missing =
    role === 'controller' && !service
      ? 'the API’s Service to register (ROLE=controller does not serve the webhook): set ADMISSION_WEBHOOK_SERVICE'
      : role === 'all' && !tls
        ? 'TLS (kube-apiserver calls webhooks over https only): set TLS_CERT_FILE and TLS_KEY_FILE'
        : !existsSync(caFile)
          ? `the CA that signed the serving certificate: ${given ? `ADMISSION_WEBHOOK_CA_FILE does not exist: ${caFile}` : 'set ADMISSION_WEBHOOK_CA_FILE'}`
          : undefined;
  if (!missing) return { caFile, service };
  if (requested || given)
    throw new ConfigError(`ADMISSION_WEBHOOK needs ${missing} (or set ADMISSION_WEBHOOK=false)`);
  return undefined;
}
