/** The longest field manager name the API server takes (bytes of UTF-8). */
const MAX_MANAGER_BYTES = 128;

/**
 * The `fieldManager` a write is relayed with, chosen as the API server chooses it for its own clients: the one the
 * client named, as named (two managers of one caller stay two managers, so server-side apply's ownership,
 * conflicts and `force` behave exactly as on the API server); else, except for apply, the client's User-Agent up to
 * its first `/` (printable characters, at most 128 bytes), which the API server would otherwise take from our own
 * User-Agent. An apply naming no manager is left without one: the API server refuses it (422, fieldManager
 * Required). Who the caller is lives in the change record, not in managedFields.
 */
export function fieldManagerFor(
  named: string | undefined,
  userAgent: string | undefined,
  apply: boolean,
): string | undefined {
  if (named !== undefined && named !== '') return named;
  if (apply) return undefined;
  const derived = userAgentPrefix(userAgent ?? '');
  return derived === '' ? undefined : derived;
}

function userAgentPrefix(userAgent: string): string {
  let prefix = '';
  let bytes = 0;
  for (const char of userAgent.split('/')[0]!) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(char)) continue;
    const size = Buffer.byteLength(char);
    if (bytes + size > MAX_MANAGER_BYTES) break;
    prefix += char;
    bytes += size;
  }
  return prefix;
}
