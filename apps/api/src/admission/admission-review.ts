import type { KubeStatus } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL, type ImageAllowlist } from '@ngx/nginx-api';
import { StatusException } from '../http/kube-status.js';
import { checkNginx } from '../rest/write-checks.js';
import { JUDGED_OPERATIONS } from './webhook-configuration.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

/** Longest request uid taken back (kube-apiserver sends a UUID). */
const MAX_UID_LENGTH = 256;

/** The answer kube-apiserver reads: `response.uid` is the request's, `status` explains a refusal. */
export interface AdmissionReviewAnswer {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: { uid: string; allowed: boolean; status?: KubeStatus };
}

/** An AdmissionReview judged, or why the body is none (answered 400: kube-apiserver then applies failurePolicy). */
export type AdmissionOutcome = { ok: true; review: AdmissionReviewAnswer } | { ok: false; problem: string };

export interface AdmissionOptions {
  /** IMAGE_ALLOWLIST, as the REST layer checks it. */
  imageAllowlist?: ImageAllowlist;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const own = (object: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(object, key) ? object[key] : undefined;

/**
 * Judges an `admission.k8s.io/v1` AdmissionReview of an Nginx: a CREATE or UPDATE of the object itself (not a
 * subresource) is refused with exactly the Status our REST API's 422 gives for the same object (the schema, the
 * spec's rules with the nginx syntax of spec.config and its line, IMAGE_ALLOWLIST); anything else the
 * configuration might send (another resource, a subresource, DELETE, CONNECT) is allowed unjudged.
 * Pure and side-effect free: the answer depends on the review alone, and a dry run (`request.dryRun`) gets the
 * same answer as the real write, which is what `sideEffects: None` promises.
 */
export function admissionResponse(review: unknown, options: AdmissionOptions = {}): AdmissionOutcome {
  if (!isObject(review)) return { ok: false, problem: 'the body is not a JSON object' };
  if (own(review, 'apiVersion') !== ADMISSION_API_VERSION || own(review, 'kind') !== 'AdmissionReview')
    return { ok: false, problem: `expected apiVersion ${ADMISSION_API_VERSION} and kind AdmissionReview` };
  const request = own(review, 'request');
  if (!isObject(request)) return { ok: false, problem: 'request must be an object' };
  const uid = own(request, 'uid');
  if (typeof uid !== 'string' || uid === '' || uid.length > MAX_UID_LENGTH)
    return { ok: false, problem: `request.uid must be a string of 1 to ${MAX_UID_LENGTH} characters` };
  const operation = own(request, 'operation');
  if (typeof operation !== 'string') return { ok: false, problem: 'request.operation must be a string' };
  const allow = (status?: KubeStatus): AdmissionOutcome => ({
    ok: true,
    review: {
      apiVersion: ADMISSION_API_VERSION,
      kind: 'AdmissionReview',
      response: { uid, allowed: status === undefined, ...(status ? { status } : {}) },
    },
  });
  if (!judged(request, operation)) return allow();
  const object = own(request, 'object');
  if (!isObject(object)) return { ok: false, problem: `request.object must be an object for ${operation}` };
  const namespace = own(request, 'namespace');
  const metadata = own(object, 'metadata');
  const objectNamespace = isObject(metadata) ? own(metadata, 'namespace') : undefined;
  const where =
    typeof namespace === 'string' && namespace !== ''
      ? namespace
      : typeof objectNamespace === 'string'
        ? objectNamespace
        : '';
  return allow(refusal(object, where, options));
}

/** Whether a request is one the webhook judges: a CREATE or UPDATE of an Nginx itself. */
function judged(request: Record<string, unknown>, operation: string): boolean {
  const resource = own(request, 'resource');
  const subResource = own(request, 'subResource');
  return (
    (JUDGED_OPERATIONS as readonly string[]).includes(operation) &&
    isObject(resource) &&
    own(resource, 'group') === NGINX_GROUP &&
    own(resource, 'resource') === NGINX_PLURAL &&
    (subResource === undefined || subResource === '')
  );
}

/** The REST layer's refusal of this object, as a metav1.Status; undefined when it passes. */
function refusal(object: unknown, namespace: string, options: AdmissionOptions): KubeStatus | undefined {
  try {
    checkNginx(object, { namespace, imageAllowlist: options.imageAllowlist });
    return undefined;
  } catch (error) {
    if (error instanceof StatusException) {
      const { status, message, reason, details, code } = error.body;
      return { status, message, reason, code, ...(details ? { details } : {}) };
    }
    throw error;
  }
}
