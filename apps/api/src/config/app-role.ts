/**
 * Which part of the product one process runs (ROLE):
 * - `all` (the default, what `npm start` runs): everything in one process.
 * - `controller`: the reconciler and what it needs (informers, Lease, the audit of its reconciles, the admission
 *   webhook's registration), with /healthz, /readyz and /metrics only. It never serves the REST API or the UI.
 * - `api`: REST, UI, live gateway, sign-in, audit reads, the audit and admission webhooks, the timeline's evidence.
 *   It never reconciles and never writes pods; any number of replicas share its sessions through the database.
 */
export type AppRole = 'all' | 'controller' | 'api';

export const APP_ROLES = ['all', 'controller', 'api'] as const satisfies readonly AppRole[];

/** What a role runs: the reconciler (and its registrations), and the API surface (REST, UI, live, webhooks). */
export interface RoleParts {
  controller: boolean;
  api: boolean;
}

export function roleParts(role: AppRole): RoleParts {
  return { controller: role !== 'api', api: role !== 'controller' };
}
