import type { Nginx } from '../types.js';

/**
 * What a request to an Nginx (a rollback, a canary's promote or abort) writes, decided from the Nginx as just read
 * from the API server.
 */
export interface WritePlan {
  /** The Nginx as read: its spec is the change record's spec before the write, and the answer when nothing is written. */
  nginx: Nginx;
  /**
   * A JSON merge patch of the Nginx, with `metadata.resourceVersion` as the precondition. Undefined when the Nginx
   * already says what the request asks: nothing is written.
   */
  patch: Record<string, unknown> | undefined;
}
