import { errorMessage, type KubeStatus as StatusBody } from '@ngx/kube-runtime/status';
import {
  CONTROLPLANE_API_VERSION,
  NGINX_API_VERSION,
  NGINX_PLURAL,
  type Nginx,
  type PodWhy,
  type RevisionItem,
  type TimelineKind,
  type TimelineList,
} from '@ngx/nginx-api';
import type { Identity } from '@/lib/session/session';

export { errorMessage };

/** One cause of a Kubernetes `Status` error: which field, and what is wrong with it. */
export type StatusCause = NonNullable<NonNullable<StatusBody['details']>['causes']>[number];

/** A Kubernetes `Status` object, as every error of the control plane is answered. */
export type KubeStatus = StatusBody & { kind: 'Status'; code: number };

/** A request that failed: the server's `Status` (or, when the server could not be reached, code 0). */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly causes: StatusCause[];
  readonly status: KubeStatus | undefined;

  constructor(code: number, reason: string, message: string, status?: KubeStatus) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.causes = status?.details?.causes ?? [];
    this.status = status;
  }

  /** The causes naming `field` (e.g. `spec.replicas`), joined into one message. */
  causeFor(field: string): string | undefined {
    const messages = this.causes.filter((c) => c.field === field).map((c) => c.message ?? c.reason ?? '');
    return messages.length ? messages.join('; ') : undefined;
  }

  static isStatus(value: unknown): value is KubeStatus {
    return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
  }
}

import type { ChangeItem, EventItem, ReconcileAction, ReconcileItem, RevisionList } from '@ngx/nginx-api';

export type { ChangeItem, EventItem, ReconcileAction, ReconcileItem, RevisionItem, RevisionList };

export interface AuditList<T> {
  metadata: { continue?: string };
  items: T[];
}

export type AuditKind = 'reconciles' | 'changes';

export interface AuditFilters {
  namespace?: string;
  name?: string;
  result?: string;
  /** RFC 3339 times. */
  since?: string;
  until?: string;
}

/** `/apis/mycompany.com/v1` and `/controlplane/v1`, from the constants the API server is built from. */
const GROUP_VERSION = `/apis/${NGINX_API_VERSION}`;
const CONTROLPLANE = `/${CONTROLPLANE_API_VERSION}`;
const seg = encodeURIComponent;

export const nginxPath = (namespace: string, name?: string, subresource?: 'scale' | 'status') =>
  `${GROUP_VERSION}/namespaces/${seg(namespace)}/${NGINX_PLURAL}` +
  (name ? `/${seg(name)}` : '') +
  (subresource ? `/${subresource}` : '');

/** An Nginx's path under the control plane's own API (`/controlplane/v1/namespaces/{ns}/nginxes/{name}/…`). */
export const controlPlaneNginxPath = (namespace: string, name: string, rest: string) =>
  `${CONTROLPLANE}/namespaces/${seg(namespace)}/${NGINX_PLURAL}/${seg(name)}/${rest}`;

/** Options of a write: `dryRun` runs every check and admission, and answers the result without storing it. */
export interface WriteOptions {
  dryRun?: boolean;
}

function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

/**
 * How requests are authenticated: a pasted token (sent as a bearer token), or the browser session of a sign-in
 * with the identity provider (its HttpOnly cookie goes by itself; writes carry the session's CSRF token).
 */
export type Credential = { token: string } | { csrfToken: string };

/**
 * The control plane's REST API on this origin, with the session's credential. Every failure is a
 * `StatusError`; a 401 also calls `onUnauthorized` (the token was revoked, the session ended, or the server
 * restarted with other tokens).
 */
export class ApiClient {
  constructor(
    private readonly credential: Credential,
    private readonly onUnauthorized: (error: StatusError) => void = () => {},
  ) {}

  private async send(path: string, options: RequestOptions = {}): Promise<Response> {
    const method = options.method ?? 'GET';
    const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
    if ('token' in this.credential) headers.Authorization = `Bearer ${this.credential.token}`;
    else if (method !== 'GET') headers['X-CSRF-Token'] = this.credential.csrfToken;
    if (options.contentType) headers['Content-Type'] = options.contentType;
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        body: options.body,
        cache: 'no-store',
        signal: options.signal,
      });
    } catch (error) {
      if ((error as { name?: string }).name === 'AbortError') throw error;
      throw new StatusError(
        0,
        'NetworkError',
        'The control plane could not be reached. Check your connection.',
      );
    }
    if (response.ok) return response;
    const error = await statusErrorOf(response);
    if (error.code === 401) this.onUnauthorized(error);
    throw error;
  }

  private async json<T>(path: string, options?: RequestOptions): Promise<T> {
    return (await (await this.send(path, options)).json()) as T;
  }

  whoami(signal?: AbortSignal): Promise<Identity> {
    return this.json<Identity>(`${CONTROLPLANE}/whoami`, { signal });
  }

  /** Ends the browser session; answers where to end the sign-in at the provider too, if anywhere. */
  async signOut(): Promise<string | null> {
    const answer = await this.json<{ providerSignOutUrl: string | null }>(`${CONTROLPLANE}/auth/sign-out`, {
      method: 'POST',
    });
    return answer.providerSignOutUrl;
  }

  getNginx(namespace: string, name: string): Promise<Nginx> {
    return this.json<Nginx>(nginxPath(namespace, name));
  }

  /** Creates an Nginx from an object (sent as JSON) or a YAML manifest (sent as application/yaml). */
  createNginx(namespace: string, manifest: object | string): Promise<Nginx> {
    const yaml = typeof manifest === 'string';
    return this.json<Nginx>(nginxPath(namespace), {
      method: 'POST',
      body: yaml ? manifest : JSON.stringify(manifest),
      contentType: yaml ? 'application/yaml' : 'application/json',
    });
  }

  /**
   * A JSON merge patch of the object (e.g. `{spec: {image}}`). Put `metadata.resourceVersion` in the patch to make
   * it conditional (a 409 when the object changed since it was read).
   */
  patchNginx(namespace: string, name: string, patch: object, options: WriteOptions = {}): Promise<Nginx> {
    return this.json<Nginx>(
      nginxPath(namespace, name) + query({ dryRun: options.dryRun ? 'All' : undefined }),
      {
        method: 'PATCH',
        body: JSON.stringify(patch),
        contentType: 'application/merge-patch+json',
      },
    );
  }

  /**
   * Replaces the whole object (PUT) from an object or a YAML manifest; its `metadata.resourceVersion` is the
   * precondition (a 409 when the object changed since it was read).
   */
  replaceNginx(
    namespace: string,
    name: string,
    manifest: object | string,
    options: WriteOptions = {},
  ): Promise<Nginx> {
    const yaml = typeof manifest === 'string';
    return this.json<Nginx>(
      nginxPath(namespace, name) + query({ dryRun: options.dryRun ? 'All' : undefined }),
      {
        method: 'PUT',
        body: yaml ? manifest : JSON.stringify(manifest),
        contentType: yaml ? 'application/yaml' : 'application/json',
      },
    );
  }

  /** Every revision the controller keeps, with the audited change that introduced each. */
  revisions(namespace: string, name: string, signal?: AbortSignal): Promise<RevisionList> {
    return this.json<RevisionList>(controlPlaneNginxPath(namespace, name, 'revisions'), { signal });
  }

  /**
   * Writes revision `revision`'s pod template back into the spec (audited as verb `rollback`). With
   * `resourceVersion`, only if the Nginx is still at it (else a 409).
   */
  rollback(namespace: string, name: string, revision: number, resourceVersion?: string): Promise<Nginx> {
    return this.json<Nginx>(controlPlaneNginxPath(namespace, name, `revisions/${revision}/rollback`), {
      method: 'POST',
      body: JSON.stringify(resourceVersion ? { resourceVersion } : {}),
      contentType: 'application/json',
    });
  }

  /**
   * Moves the canary past its current step, or with `full` past every step (audited as verb `promote`). A 409
   * when no canary is under way.
   */
  promote(namespace: string, name: string, full = false): Promise<Nginx> {
    return this.json<Nginx>(controlPlaneNginxPath(namespace, name, `promote${full ? '?full=true' : ''}`), {
      method: 'POST',
    });
  }

  /** Sends every pod back to the stable revision now; the spec is kept (audited as verb `abort`). */
  abort(namespace: string, name: string): Promise<Nginx> {
    return this.json<Nginx>(controlPlaneNginxPath(namespace, name, 'abort'), { method: 'POST' });
  }

  /** Sets spec.replicas through the scale subresource, with a merge patch. */
  scaleNginx(namespace: string, name: string, replicas: number): Promise<unknown> {
    return this.json(nginxPath(namespace, name, 'scale'), {
      method: 'PATCH',
      body: JSON.stringify({ spec: { replicas } }),
      contentType: 'application/merge-patch+json',
    });
  }

  async deleteNginx(namespace: string, name: string): Promise<void> {
    await this.send(nginxPath(namespace, name), { method: 'DELETE' });
  }

  /** One page of an Nginx's causal timeline, newest first (`kinds`: only those). */
  timeline(
    namespace: string,
    name: string,
    params: { kinds?: readonly TimelineKind[]; limit?: number; continue?: string } = {},
    signal?: AbortSignal,
  ): Promise<TimelineList> {
    const query = new URLSearchParams();
    if (params.kinds && params.kinds.length > 0) query.set('kind', params.kinds.join(','));
    if (params.limit) query.set('limit', String(params.limit));
    if (params.continue) query.set('continue', params.continue);
    const suffix = query.size > 0 ? `?${query}` : '';
    return this.json<TimelineList>(controlPlaneNginxPath(namespace, name, `timeline${suffix}`), { signal });
  }

  /** Why a pod of an Nginx exists or went: the chain back to the change or the person that caused it. */
  podWhy(namespace: string, name: string, pod: string, signal?: AbortSignal): Promise<PodWhy> {
    return this.json<PodWhy>(controlPlaneNginxPath(namespace, name, `pods/${encodeURIComponent(pod)}/why`), {
      signal,
    });
  }

  async events(namespace: string, name: string, signal?: AbortSignal): Promise<EventItem[]> {
    const list = await this.json<{ items: EventItem[] }>(controlPlaneNginxPath(namespace, name, 'events'), {
      signal,
    });
    return list.items;
  }

  audit<T = ReconcileItem | ChangeItem>(
    kind: AuditKind,
    filters: AuditFilters,
    page: { limit?: number; continue?: string } = {},
    signal?: AbortSignal,
  ): Promise<AuditList<T>> {
    return this.json<AuditList<T>>(
      `${CONTROLPLANE}/audit/${kind}` +
        query({ ...filters, limit: page.limit?.toString(), continue: page.continue }),
      { signal },
    );
  }

  /** Every matching record as a file (the server streams it), with the name the server gives it. */
  async exportAudit(
    kind: AuditKind,
    filters: AuditFilters,
    format: 'csv' | 'ndjson',
  ): Promise<{ blob: Blob; filename: string }> {
    const response = await this.send(`${CONTROLPLANE}/audit/${kind}` + query({ ...filters, format }), {
      accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
    });
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `${kind}.${format}`;
    return { blob: await response.blob(), filename };
  }
}

/** The `StatusError` of a failed response (a `Status` body when there is one). */
export async function statusErrorOf(response: Response): Promise<StatusError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (StatusError.isStatus(body))
    return new StatusError(
      body.code || response.status,
      body.reason ?? response.statusText,
      body.message || `${response.status} ${response.statusText}`,
      body,
    );
  return new StatusError(
    response.status,
    response.statusText,
    text.trim().slice(0, 300) || `${response.status} ${response.statusText}`,
  );
}

/** The browser session of a sign-in with the identity provider, as `/controlplane/v1/auth/session` answers it. */
export interface BrowserSession {
  username: string;
  groups: string[];
  email: string | null;
  authenticatedBy: string;
  expiresAt: string;
  csrfToken: string;
}

/** This browser's session with the provider's sign-in, or null when it has none (a 401). */
export async function browserSession(signal?: AbortSignal): Promise<BrowserSession | null> {
  let response: Response;
  try {
    response = await fetch(`${CONTROLPLANE}/auth/session`, {
      credentials: 'same-origin',
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if ((error as { name?: string }).name === 'AbortError') throw error;
    throw new StatusError(
      0,
      'NetworkError',
      'The control plane could not be reached. Check your connection.',
    );
  }
  if (response.status === 401) return null;
  if (!response.ok) throw await statusErrorOf(response);
  return (await response.json()) as BrowserSession;
}

/** How one may sign in here, as `/controlplane/v1/auth/providers` answers it. */
export interface SignInOptions {
  tokens: boolean;
  oidc: { issuer: string; signInPath: string; available: boolean; problem?: string } | null;
}

export async function signInOptions(signal?: AbortSignal): Promise<SignInOptions> {
  const response = await fetch(`${CONTROLPLANE}/auth/providers`, { cache: 'no-store', signal });
  if (!response.ok) throw await statusErrorOf(response);
  return (await response.json()) as SignInOptions;
}
