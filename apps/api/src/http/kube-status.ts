import type { KubeStatus } from '@ngx/kube-runtime';

/** Kubernetes' reason for each HTTP code the control plane answers itself (metav1.StatusReason). */
const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A `Status` object as the API server answers errors. */
export function kubeStatus(
  code: number,
  message: string,
  details?: KubeStatus['details'],
): Required<Pick<KubeStatus, 'kind' | 'apiVersion' | 'status' | 'message' | 'reason' | 'code'>> & KubeStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: REASONS[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest'),
    ...(details ? { details } : {}),
    code,
  } as ReturnType<typeof kubeStatus>;
}

/** An error the control plane raises itself, answered as a `Status` with this code. */
export class StatusException extends Error {
  override name = 'StatusException';

  constructor(
    readonly code: number,
    message: string,
    readonly details?: KubeStatus['details'],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get body() {
    return kubeStatus(this.code, this.message, this.details);
  }
}

/** The 404 the API server answers for a missing object: `<plural>.<group> "<name>" not found`. */
export function notFound(resource: { group: string; plural: string }, name: string): StatusException {
  const { group, plural } = resource;
  return new StatusException(404, `${plural}${group ? `.${group}` : ''} "${name}" not found`, {
    name,
    group,
    kind: plural,
  });
}

/** Where the exception filter leaves the `Status` it answered a request with (the change audit reads it). */
const ANSWERED = 'answeredStatus';

export function rememberAnswered(locals: Record<string, unknown>, status: object): void {
  locals[ANSWERED] = status;
}

export function answeredStatus(locals: Record<string, unknown>): unknown {
  return locals[ANSWERED];
}
