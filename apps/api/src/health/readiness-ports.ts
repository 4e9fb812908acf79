import type { IncomingMessage } from 'node:http';
import type { ControllerCheck } from './readiness.js';

/**
 * The controller's part of /readyz, provided by the roles that reconcile (NginxControllerService): its caches
 * synced, and whether this instance holds the Lease. Absent in ROLE=api.
 */
export abstract class ControllerReadiness {
  abstract readiness(): ControllerCheck;
}

/**
 * Whether a request may read /readyz's details (addresses, versions, errors): a caller the API knows by its
 * token. Provided by the roles that authenticate; without it (ROLE=controller) everyone gets the public answer and
 * the details stay in the log.
 */
export abstract class ReadinessAudience {
  abstract mayReadDetails(request: IncomingMessage): boolean;
}
