import { statusReason, type KubeStatus } from '@ngx/kube-runtime';

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
    reason: statusReason(code) ?? (code >= 500 ? 'InternalError' : 'BadRequest'),
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
