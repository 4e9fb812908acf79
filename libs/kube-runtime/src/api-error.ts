/** The `Status` object the Kubernetes API server answers errors with. */
export interface KubeStatus {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** Kubernetes' reason for each HTTP code (metav1.StatusReason), as kube-apiserver's `Status` bodies give it. */
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

/** The `Status` reason kube-apiserver gives `code`; undefined for a code it has none for. */
export function statusReason(code: number): string | undefined {
  return REASONS[code];
}

/** A request the API server refused, with its HTTP status and `Status` body. */
export class KubeApiError extends Error {
  override name = 'KubeApiError';

  constructor(
    readonly code: number,
    readonly status: KubeStatus,
  ) {
    super(
      status.message || `Kubernetes API answered HTTP ${code}${status.reason ? ` (${status.reason})` : ''}`,
    );
  }

  get reason(): string | undefined {
    return this.status.reason;
  }

  /** 410 Gone: the resourceVersion asked for is older than the server keeps (compacted). */
  get isExpired(): boolean {
    return this.code === 410 || this.status.reason === 'Expired' || this.status.reason === 'Gone';
  }

  static fromBody(code: number, body: string): KubeApiError {
    try {
      const parsed = JSON.parse(body) as KubeStatus;
      if (parsed && typeof parsed === 'object' && parsed.kind === 'Status')
        return new KubeApiError(code, parsed);
    } catch {
      /* not JSON: keep the text */
    }
    return new KubeApiError(code, {
      kind: 'Status',
      status: 'Failure',
      code,
      message: body.trim().slice(0, 500) || undefined,
    });
  }
}

/** What a log line or `Status` message says of anything thrown: an Error's message, else its string form. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `error` is the API server's refusal with one of `codes` (any refusal when none is given). */
export function isApiError(error: unknown, ...codes: number[]): error is KubeApiError {
  return error instanceof KubeApiError && (codes.length === 0 || codes.includes(error.code));
}

/** 404 Not Found: the object (or its namespace) does not exist. */
export const isNotFound = (error: unknown): error is KubeApiError => isApiError(error, 404);

/** 409 Conflict: a stale resourceVersion, or the object already exists. */
export const isConflict = (error: unknown): error is KubeApiError => isApiError(error, 409);

/** 422 Unprocessable: the object does not validate. */
export const isInvalid = (error: unknown): error is KubeApiError => isApiError(error, 422);

// The two below answer a plain boolean: as type guards, their false branch would rule out every KubeApiError.

/** 429 Too Many Requests: the API server's priority and fairness shed it; it may be sent again later. */
export const isTooManyRequests = (error: unknown): boolean => isApiError(error, 429);

/** A 5xx: the server failed to answer it, and a write may or may not have been stored. */
export const isServerError = (error: unknown): boolean => isApiError(error) && error.code >= 500;

/**
 * For a `catch` whose wish is that the object not exist: a 404 is the wish come true (undefined), anything else is
 * thrown again. `catch (error) { return ignoreNotFound(error); }`
 */
export function ignoreNotFound(error: unknown): undefined {
  if (isNotFound(error)) return undefined;
  throw error;
}

/** The same for a create that may find the object already there (409). */
export function ignoreConflict(error: unknown): undefined {
  if (isConflict(error)) return undefined;
  throw error;
}
