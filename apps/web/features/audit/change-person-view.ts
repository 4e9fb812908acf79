import type { AuthenticatedBy, ChangeItem } from '@ngx/nginx-api';

const SIGNED_IN_WITH: Readonly<Record<AuthenticatedBy, string>> = {
  'static-token': 'token',
  oidc: 'OIDC',
  serviceaccount: 'ServiceAccount',
};

/** Who made a change, as the change detail shows them. */
export interface ChangePersonView {
  /** The actor's name; null when no record of the change knows it (seen by the informer only). */
  name: string | null;
  email: string | null;
  /** Their groups as they signed in; empty when none are recorded. */
  groups: string[];
  /** "signed in with OIDC", "… ServiceAccount", "… token"; null when the change does not say (other doors, older records). */
  signedIn: string | null;
}

export function changePerson(item: ChangeItem): ChangePersonView {
  return {
    name: item.actor || null,
    email: item.actorEmail,
    groups: item.actorGroups ?? [],
    signedIn: item.authenticatedBy ? `signed in with ${SIGNED_IN_WITH[item.authenticatedBy]}` : null,
  };
}

/**
 * What kube-apiserver saw of the write, in words: "alice [dev, system:authenticated]", and for an impersonated
 * write "alice [dev], impersonated by system:serviceaccount:ngx:control-plane". Its own record's actor when it
 * recorded the change, else the user it saw; null when nothing says.
 */
export function kubeSaw(item: ChangeItem): string | null {
  const user = item.kubeActor ?? item.kubeUser;
  if (!user) return null;
  const groups = item.kubeGroups && item.kubeGroups.length > 0 ? ` [${item.kubeGroups.join(', ')}]` : '';
  const impersonated =
    item.impersonator && item.impersonator !== user ? `, impersonated by ${item.impersonator}` : '';
  return `${user}${groups}${impersonated}`;
}

/** The person in one line, for a tooltip on their name: "alice@example.com, signed in with OIDC"; undefined when nothing is recorded. */
export function changePersonTitle(item: ChangeItem): string | undefined {
  const { email, signedIn } = changePerson(item);
  const parts = [email, signedIn].filter((part): part is string => part !== null);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
