import { createHash } from 'node:crypto';
import { NGINX_CRD_NAME, NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION } from '@ngx/nginx-api';

/** The operations the webhook judges (admission-review.ts); the configuration registers only these. */
export const JUDGED_OPERATIONS = ['CREATE', 'UPDATE'] as const;

/** Where kube-apiserver posts AdmissionReviews (served by AdmissionController). */
export const ADMISSION_PATH = '/controlplane/v1/admission/nginxes';

/**
 * How long kube-apiserver waits for an answer before applying the failure policy. Judging one Nginx takes
 * milliseconds; 5 s covers a busy app without holding a kubectl write long when the app hangs.
 */
export const ADMISSION_TIMEOUT_SECONDS = 5;

/** How kube-apiserver reaches the app: a URL (the app on kube-apiserver's host) or the app's Service. */
export type WebhookEndpoint =
  { url: string } | { service: { namespace: string; name: string; port: number } };

export interface WebhookConfigurationInput {
  endpoint: WebhookEndpoint;
  /** PEM of the CA that signed the app's serving certificate. */
  caBundlePem: string;
  /** WATCH_NAMESPACE: judge only these namespaces' Nginxes, under a configuration of their own. */
  namespaces?: readonly string[];
}

/** The longest object name kube-apiserver takes (a DNS subdomain). */
const MAX_NAME_LENGTH = 253;

/**
 * The ValidatingWebhookConfiguration's name: `nginxes.mycompany.com`, or `<namespace>.nginxes.mycompany.com` for an
 * app that manages one namespace (WATCH_NAMESPACE; `<a>.<b>.nginxes.mycompany.com` for several), so that apps of
 * different namespaces never replace each other's registration. A list too long for a name is named by its digest.
 */
export function webhookConfigurationName(namespaces?: readonly string[]): string {
  if (!namespaces?.length) return NGINX_CRD_NAME;
  const joined = namespaces.join('.');
  if (joined.length + 1 + NGINX_CRD_NAME.length <= MAX_NAME_LENGTH) return `${joined}.${NGINX_CRD_NAME}`;
  return `${createHash('sha256').update(joined).digest('hex').slice(0, 16)}.${NGINX_CRD_NAME}`;
}

/**
 * The ValidatingWebhookConfiguration the app applies (server-side apply, so applying it again changes nothing).
 * Only CREATE and UPDATE of `nginxes` themselves are sent (not their status or scale), so no other write in the
 * cluster ever waits for the app. `failurePolicy: Ignore`: while the app is down or slow (beyond
 * ADMISSION_TIMEOUT_SECONDS), Nginx writes go through unjudged, and the controller's own check is the backstop (it
 * flags a bad config InvalidConfig and never rolls it out); `Fail` would stop every Nginx write, kubectl's and
 * the HPA's, whenever the app is away. `sideEffects: None`: judging changes nothing, so dry runs are judged too.
 */
export function webhookConfiguration(input: WebhookConfigurationInput) {
  const name = webhookConfigurationName(input.namespaces);
  const clientConfig = {
    ...('url' in input.endpoint
      ? { url: `${input.endpoint.url.replace(/\/+$/, '')}${ADMISSION_PATH}` }
      : { service: { ...input.endpoint.service, path: ADMISSION_PATH } }),
    caBundle: Buffer.from(input.caBundlePem, 'utf8').toString('base64'),
  };
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name, labels: { 'app.kubernetes.io/name': 'nginx-control-plane' } },
    webhooks: [
      {
        name,
        clientConfig,
        rules: [
          {
            apiGroups: [NGINX_GROUP],
            apiVersions: [NGINX_VERSION],
            operations: [...JUDGED_OPERATIONS],
            resources: [NGINX_PLURAL],
            scope: 'Namespaced',
          },
        ],
        ...(input.namespaces?.length
          ? {
              namespaceSelector: {
                matchExpressions: [
                  { key: 'kubernetes.io/metadata.name', operator: 'In', values: [...input.namespaces] },
                ],
              },
            }
          : {}),
        failurePolicy: 'Ignore',
        matchPolicy: 'Equivalent',
        sideEffects: 'None',
        timeoutSeconds: ADMISSION_TIMEOUT_SECONDS,
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}
