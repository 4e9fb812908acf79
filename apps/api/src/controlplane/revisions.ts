import type { V1ControllerRevision } from '@kubernetes/client-node';
import {
  LABEL_REVISION,
  NGINX_GROUP,
  NGINX_PLURAL,
  podTemplateOf,
  revisionOf,
  specWithTemplate,
  type Nginx,
  type NginxPodTemplate,
  type NginxSpec,
  type RevisionItem,
} from '@ngx/nginx-api';
import type { SpecChange } from '../audit/audit-reader.js';
import { StatusException } from '../http/kube-status.js';
import { printable } from '../http/path-params.js';
import { mergePatch } from './merge-patch.js';
import type { RollbackPlan } from './revision-writes.js';

/**
 * The revisions of an Nginx and the rollback to one of them, as plain functions: the ControllerRevisions the
 * controller keeps (one per pod template, numbered in rollout order), matched with the change audit's writes.
 */

/** One revision of an Nginx, from its ControllerRevision. */
export interface Revision {
  /** The ControllerRevision's name. */
  name: string;
  revision: number;
  /** The pod template hash (`mycompany.com/revision`). */
  hash: string;
  template: NginxPodTemplate;
  created: string;
}

/** Who made the write that introduced a revision, and when. */
export type RevisionChange = NonNullable<RevisionItem['change']>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const time = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';

/** `{n}` of `…/revisions/{n}/rollback`: a positive integer, else 400 naming it. */
export function revisionParam(value: string): number {
  const number = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : NaN;
  if (Number.isSafeInteger(number)) return number;
  const problem = 'must be a positive integer (1, 2, 3 …), a revision number as the revisions list shows it';
  throw new StatusException(400, `revision "${printable(value)}" is invalid: ${problem}`, {
    causes: [{ reason: 'FieldValueInvalid', field: 'revision', message: problem }],
  });
}

/** A template as a ControllerRevision holds it in `data.template`; undefined when it is not one. */
function templateIn(data: unknown): NginxPodTemplate | undefined {
  const template = isObject(data) ? data.template : undefined;
  if (!isObject(template) || typeof template.image !== 'string' || typeof template.port !== 'number')
    return undefined;
  return template as unknown as NginxPodTemplate;
}

/**
 * The revisions of `nginx` among `controllerRevisions` (a LIST by its label): only those it controls, matched by
 * uid (not those of an earlier object of the same name, nor another controller's), holding a template; newest
 * revision number first.
 */
export function revisionsOf(nginx: Nginx, controllerRevisions: readonly V1ControllerRevision[]): Revision[] {
  const uid = nginx.metadata.uid;
  const revisions: Revision[] = [];
  for (const object of controllerRevisions) {
    const controller = object.metadata?.ownerReferences?.find((ref) => ref.controller);
    const template = templateIn(object.data);
    if (!uid || controller?.uid !== uid || !template || !Number.isSafeInteger(object.revision)) continue;
    revisions.push({
      name: object.metadata?.name ?? '',
      revision: object.revision,
      hash: object.metadata?.labels?.[LABEL_REVISION] || revisionOf(template),
      template,
      created: time(object.metadata?.creationTimestamp),
    });
  }
  return revisions.sort(
    (a, b) => b.revision - a.revision || b.created.localeCompare(a.created) || a.name.localeCompare(b.name),
  );
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

/** The revision numbered `number`, else the 404 naming it. */
export function revisionNumbered(nginx: Nginx, revisions: readonly Revision[], number: number): Revision {
  const found = revisions.find((revision) => revision.revision === number);
  if (found) return found;
  const name = nginx.metadata.name ?? '';
  const known = revisions.map((revision) => revision.revision).join(', ');
  const message = `${NGINX_PLURAL}.${NGINX_GROUP} "${name}" has no revision ${number}`;
  throw new StatusException(404, known ? `${message} (it has ${known})` : message, {
    name,
    group: NGINX_GROUP,
    kind: NGINX_PLURAL,
    causes: [{ reason: 'FieldValueNotFound', field: 'revision', message: `revision ${number} not found` }],
  });
}

/** What the caller of a rollback may say: the Nginx's resourceVersion it read (a precondition). */
export interface RollbackOptions {
  resourceVersion?: string;
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

/** The 409 the API server answers a write made on a resourceVersion that is no longer the object's. */
export function conflict(name: string): StatusException {
  return new StatusException(
    409,
    `Operation cannot be fulfilled on ${NGINX_PLURAL}.${NGINX_GROUP} "${name}": the object has been modified; ` +
      'please apply your changes to the latest version and try again',
    { name, group: NGINX_GROUP, kind: NGINX_PLURAL },
  );
}

/**
 * The 409 for a rollback whose spec would break a rule relating a template field to a field the rollback keeps:
 * today spec.ingress.tls (kept: the Ingress is not part of the pod template) needing spec.tls (the revision's).
 * Refused, naming the field and the ways out, rather than written: keeping spec.tls would not be the revision
 * (its pods served no TLS), and turning spec.ingress.tls off would quietly move the public Ingress from HTTPS to
 * plain HTTP. 409 rather than the schema's 422: the request is valid, the Nginx as it now is makes it conflict.
 */
export function rollbackConflict(
  nginx: Nginx,
  revision: Revision,
  after: NginxSpec,
): StatusException | undefined {
  if (after.ingress?.tls !== true || after.tls) return undefined;
  const name = nginx.metadata.name ?? '';
  const problem =
    `revision ${revision.revision} has no spec.tls, which spec.ingress.tls (true, kept by a rollback: the Ingress ` +
    'is not part of a revision) needs: set spec.ingress.tls to false first (the Ingress then serves plain HTTP), ' +
    'or roll back to a revision with spec.tls';
  return new StatusException(
    409,
    `Operation cannot be fulfilled on ${NGINX_PLURAL}.${NGINX_GROUP} "${name}": ${problem}`,
    {
      name,
      group: NGINX_GROUP,
      kind: NGINX_PLURAL,
      causes: [{ reason: 'FieldValueInvalid', field: 'spec.ingress.tls', message: problem }],
    },
  );
}

/**
 * What a rollback of `nginx` (as just read) to `revision` writes: a merge patch of the spec to
 * `specWithTemplate(spec, template)`, which changes only the template fields, with `metadata.resourceVersion`
 * as its precondition: the caller's when given (the API server answers 409 if the Nginx changed since), else
 * the one read here (so the patch, computed from that spec, is never applied to another). When the spec already
 * has the revision's template there is nothing to write; a stale resourceVersion is still a 409 then. A spec
 * the rollback would leave invalid is refused with rollbackConflict's 409.
 */
export function rollbackPlan(nginx: Nginx, revision: Revision, options: RollbackOptions): RollbackPlan {
  const read = nginx.metadata.resourceVersion;
  const spec = nginx.spec;
  if (revisionOf(podTemplateOf(spec)) === revisionOf(revision.template)) {
    if (options.resourceVersion !== undefined && options.resourceVersion !== read)
      throw conflict(nginx.metadata.name ?? '');
    return { nginx, patch: undefined };
  }
  const after = specWithTemplate(spec, revision.template);
  const conflicting = rollbackConflict(nginx, revision, after);
  if (conflicting) throw conflicting;
  return {
    nginx,
    patch: {
      metadata: { resourceVersion: options.resourceVersion ?? read },
      spec: mergePatch(
        spec as unknown as Record<string, unknown>,
        after as unknown as Record<string, unknown>,
      ),
    },
  };
}
