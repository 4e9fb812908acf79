import type { Nginx } from '@ngx/nginx-api';
import type { Request, Response } from 'express';

/** What a rollback writes, decided by the revisions endpoint once the caller's role allows the write. */
export interface RollbackPlan {
  /** The Nginx as just read from the API server: its spec is the change record's spec before the write. */
  nginx: Nginx;
  /**
   * A JSON merge patch of the Nginx: the revision's template fields, and `metadata.resourceVersion` as the
   * precondition. Undefined when the spec already has that template: nothing is written, `nginx` is the answer.
   */
  patch: Record<string, unknown> | undefined;
}

/**
 * The write a rollback makes, made as the caller exactly as the REST API's writes are (role check, checks of
 * the patch against the schema and the image allow-list, `fieldManager` the token's name, relayed to the API
 * server whose answer goes back unchanged, the outcome in the change record). Implemented by the REST layer's
 * NginxWrites: controlplane/ may not import rest/ (API_LAYERS in eslint.config.js), so AppModule wires the two.
 */
export abstract class RevisionWrites {
  /**
   * Checks the caller's role, then runs `plan` (which reads what it needs and may refuse with a Status) and
   * sends its patch, answering `res` with the API server's answer; recorded in the change audit as `rollback`.
   */
  abstract rollback(
    namespace: string,
    name: string,
    req: Request,
    res: Response,
    plan: () => Promise<RollbackPlan>,
  ): Promise<void>;

  /**
   * As `rollback`, for a canary's promote or abort request (`plan` patches the request's annotation), recorded in
   * the change audit as `promote` or `abort`.
   */
  abstract canaryRequest(
    verb: 'promote' | 'abort',
    namespace: string,
    name: string,
    req: Request,
    res: Response,
    plan: () => Promise<RollbackPlan>,
  ): Promise<void>;
}
