import type { WritePlan } from '@ngx/nginx-api';
import type { Request, Response } from 'express';

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
    plan: () => Promise<WritePlan>,
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
    plan: () => Promise<WritePlan>,
  ): Promise<void>;
}
