import type { AuditKind } from '@/lib/api/api-client';

/**
 * The key of every read the UI caches. Everything about one Nginx starts with `nginx(namespace, name)`, so a
 * change seen live can refresh (or write) all of it at once with that prefix.
 */
export const queryKeys = {
  nginx: (namespace: string, name: string) => ['nginx', namespace, name] as const,
  events: (namespace: string, name: string) => [...queryKeys.nginx(namespace, name), 'events'] as const,
  timeline: (namespace: string, name: string, limit: number) =>
    [...queryKeys.nginx(namespace, name), 'timeline', { limit }] as const,
  revisions: (namespace: string, name: string) => [...queryKeys.nginx(namespace, name), 'revisions'] as const,
  podWhy: (namespace: string, name: string, pod: string | undefined) =>
    [...queryKeys.nginx(namespace, name), 'pod-why', pod ?? null] as const,
  configCheck: (namespace: string, name: string, text: string | undefined) =>
    [...queryKeys.nginx(namespace, name), 'config-check', text ?? null] as const,
  /** `filters`: the audit view's filters as in its URL (any plain object: a key holds it as it is). */
  audit: (kind: AuditKind, filters: object, pageSize: number) => ['audit', kind, filters, pageSize] as const,
  signInOptions: () => ['sign-in-options'] as const,
  browserSession: () => ['session', 'browser'] as const,
  whoami: (credentialKey: string) => ['session', 'whoami', credentialKey] as const,
};
