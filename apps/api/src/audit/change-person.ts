import type { AuthenticatedBy } from '../auth/identity.js';
import type { Caller } from '../auth/roles.js';

/**
 * The person behind a change made through the control plane, as its record stores them (the ChangeRecord
 * columns of the same names). Records of the other doors leave all three null.
 */
export interface ChangePerson {
  /** The identity's email; null when it has none (a static token, a ServiceAccount, a provider that sent none). */
  actorEmail: string | null;
  /** The identity's groups as a JSON array (`[]` when it has none); null for a token-file token, which names none. */
  actorGroups: string | null;
  authenticatedBy: AuthenticatedBy;
}

/** How `caller` is named in its change records: a caller without an identity holds a token from the token file. */
export function changePerson(caller: Caller): ChangePerson {
  const identity = caller.identity;
  if (!identity) return { actorEmail: null, actorGroups: null, authenticatedBy: 'static-token' };
  return {
    actorEmail: identity.email ?? null,
    actorGroups: JSON.stringify(identity.groups),
    authenticatedBy: identity.authenticatedBy,
  };
}
