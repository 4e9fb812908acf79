import {
  podTemplateOf,
  revisionOf,
  type Nginx,
  type NginxSpec,
  type Revision,
  type RevisionItem,
  type RollbackOptions,
} from '@ngx/nginx-api';
import type { SpecChange } from '../audit/audit-reader.js';
import { StatusException } from '../http/kube-status.js';
import { printable } from '../http/path-params.js';

/**
 * The revisions of an Nginx matched with the change audit's writes, and the rollback endpoint's inputs, as plain
 * functions (the revisions themselves and the rollback's patch: @ngx/nginx-api's requests/rollback.ts).
 */

/** Who made the write that introduced a revision, and when. */
export type RevisionChange = NonNullable<RevisionItem['change']>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{n}` of `…/revisions/{n}/rollback`: a positive integer, else 400 naming it. */
export function revisionParam(value: string): number {
  const number = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(number)) return number;
  const problem = 'must be a positive integer (1, 2, 3 …), a revision number as the revisions list shows it';
  throw new StatusException(400, `revision "${printable(value)}" is invalid: ${problem}`, {
    causes: [{ reason: 'FieldValueInvalid', field: 'revision', message: problem }],
  });
}

/** The template hash of a spec as the change audit keeps it; undefined when it is no spec (none, or cut text). */
export function specRevision(spec: unknown): string | undefined {
  if (!isObject(spec)) return undefined;
  try {
    return revisionOf(podTemplateOf(spec as unknown as NginxSpec));
  } catch {
    return undefined;
  }
}

/**
 * The revision a write moved the Nginx to: its spec after's template hash, when the spec before had another
 * template or there was none (the create, or a spec before the audit did not know); undefined for a write that
 * left the template as it was (a scale, a status write, a replicas patch).
 */
export function introducedRevision(change: SpecChange): string | undefined {
  const after = specRevision(change.specAfter);
  if (after === undefined) return undefined;
  if (change.specBefore === null || change.specBefore === undefined) return after;
  return specRevision(change.specBefore) === after ? undefined : after;
}

/** Change-audit rows read at most while looking for the writes that introduced an Nginx's revisions. */
export const MAX_CHANGES_READ = 5000;

/**
 * For each of `hashes`, the latest write that introduced it, from `batches` of writes newest first: read only
 * until every hash has its write (or `limit` rows were read, or `signal` fired). A revision introduced otherwise than through our
 * API (kubectl on the API server), or whose write was pruned, has none.
 */
export async function introducingChanges(
  hashes: Iterable<string>,
  batches: AsyncIterable<readonly SpecChange[]>,
  { limit = MAX_CHANGES_READ, signal }: { limit?: number; signal?: AbortSignal } = {},
): Promise<Map<string, RevisionChange>> {
  const wanted = new Set(hashes);
  const found = new Map<string, RevisionChange>();
  let read = 0;
  if (wanted.size === 0) return found;
  for await (const batch of batches) {
    for (const change of batch) {
      const hash = introducedRevision(change);
      if (hash !== undefined && wanted.has(hash) && !found.has(hash))
        found.set(hash, {
          actor: change.actor,
          role: change.role || null,
          door: change.door as RevisionChange['door'],
          verb: change.verb,
          at: change.at,
        });
    }
    read += batch.length;
    if (found.size === wanted.size || read >= limit || signal?.aborted) break;
  }
  return found;
}

/** The list's items: each revision, whether it is the spec's now, and the write that introduced it. */
export function revisionItems(
  nginx: Nginx,
  revisions: readonly Revision[],
  changes: ReadonlyMap<string, RevisionChange>,
): RevisionItem[] {
  const current = revisionOf(podTemplateOf(nginx.spec));
  return revisions.map(({ revision, hash, template, created }) => ({
    revision,
    hash,
    template,
    created,
    current: hash === current,
    change: changes.get(hash) ?? null,
  }));
}

/**
 * The rollback's body, parsed JSON (or none): `{ "resourceVersion": "<the Nginx's, as the caller read it>" }`,
 * the field optional; anything else is 400 naming the field.
 */
export function rollbackOptions(body: unknown): RollbackOptions {
  if (body === undefined) return {};
  if (!isObject(body))
    throw new StatusException(400, 'the rollback body must be a JSON object: {"resourceVersion": "…"}');
  const unknown = Object.keys(body).filter((key) => key !== 'resourceVersion');
  if (unknown.length > 0)
    throw new StatusException(400, `strict decoding error: unknown field "${printable(unknown[0]!)}"`, {
      causes: unknown.map((field) => ({
        reason: 'FieldValueUnknown',
        field: printable(field),
        message: 'unknown field',
      })),
    });
  const { resourceVersion } = body;
  if (resourceVersion === undefined) return {};
  // Opaque to clients, but an etcd revision on every API server.
  if (typeof resourceVersion === 'string' && /^[0-9]{1,20}$/.test(resourceVersion))
    return { resourceVersion };
  const problem = "must be the Nginx's metadata.resourceVersion as read, a string of digits";
  throw new StatusException(400, `resourceVersion is invalid: ${problem}`, {
    causes: [{ reason: 'FieldValueInvalid', field: 'resourceVersion', message: problem }],
  });
}
