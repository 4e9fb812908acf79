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
  checks: {
    kubernetes: CheckResult & { server: string };
    database: CheckResult & { provider: string };
    controller: CheckResult & { leader: boolean };
  };
}

/**
 * What /readyz tells anyone (probes, load balancers, the tests): whether each dependency is fine and whether this
 * instance leads, with fixed texts in place of addresses, versions and error messages.
 */
export interface PublicReadiness {
  ready: boolean;
  checks: {
    kubernetes: CheckResult;
    database: CheckResult;
    controller: CheckResult & { leader: boolean };
  };
}

const REACHABLE = 'reachable';
const UNREACHABLE = 'unreachable: the reason is in the log, and in /readyz for a caller with a token';

const publicCheck = ({ ok }: CheckResult): CheckResult => ({ ok, detail: ok ? REACHABLE : UNREACHABLE });

export function publicReadiness(readiness: Readiness): PublicReadiness {
  const { kubernetes, database, controller } = readiness.checks;
  return {
    ready: readiness.ready,
    checks: {
      kubernetes: publicCheck(kubernetes),
      database: publicCheck(database),
      // The controller's own texts are fixed sentences ("caches synced, leading"): nothing to hide.
      controller: { ok: controller.ok, detail: controller.detail, leader: controller.leader },
    },
  };
}
