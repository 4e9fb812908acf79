import type { AppRole } from '../config/app-role.js';

/** One dependency's state, as the app sees it. */
export interface CheckResult {
  ok: boolean;
  detail: string;
}

/**
 * Readiness with everything the app knows: the API server's URL and version, the database's provider and the raw
 * errors of both. For callers with a token, and for the log; never for anonymous callers (see publicReadiness).
 */
export interface Readiness {
  ready: boolean;
  /** Which part of the product this process runs (ROLE). */
  role: AppRole;
  checks: {
    kubernetes: CheckResult & { server: string };
    database: CheckResult & { provider: string };
    /** ROLE=api: the shared Nginx and pod caches the API serves from (the controller's check covers them elsewhere). */
    caches?: CheckResult;
    /** The roles that reconcile: the controller's caches, and whether this instance leads. */
    controller?: ControllerCheck;
    /** Present once the process has been told to stop: it takes no new requests and is not ready. */
    shutdown?: CheckResult;
  };
}

export type ControllerCheck = CheckResult & { leader: boolean };

/**
 * What /readyz tells anyone (probes, load balancers, the tests): whether each dependency is fine and whether this
 * instance leads, with fixed texts in place of addresses, versions and error messages.
 */
export interface PublicReadiness {
  ready: boolean;
  role: AppRole;
  checks: {
    kubernetes: CheckResult;
    database: CheckResult;
    caches?: CheckResult;
    controller?: ControllerCheck;
    shutdown?: CheckResult;
  };
}

const REACHABLE = 'reachable';
const UNREACHABLE = 'unreachable: the reason is in the log, and in /readyz for a caller with a token';

const publicCheck = ({ ok }: CheckResult): CheckResult => ({ ok, detail: ok ? REACHABLE : UNREACHABLE });

export function publicReadiness(readiness: Readiness): PublicReadiness {
  const { kubernetes, database, caches, controller, shutdown } = readiness.checks;
  return {
    ready: readiness.ready,
    role: readiness.role,
    checks: {
      kubernetes: publicCheck(kubernetes),
      database: publicCheck(database),
      // The other checks' texts are fixed sentences ("caches synced, leading"): nothing to hide.
      ...(caches ? { caches: { ok: caches.ok, detail: caches.detail } } : {}),
      ...(controller
        ? { controller: { ok: controller.ok, detail: controller.detail, leader: controller.leader } }
        : {}),
      ...(shutdown ? { shutdown: { ok: shutdown.ok, detail: shutdown.detail } } : {}),
    },
  };
}
