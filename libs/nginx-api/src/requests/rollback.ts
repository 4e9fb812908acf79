import type { V1ControllerRevision } from '@kubernetes/client-node';
import { LABEL_REVISION, NGINX_GROUP, NGINX_PLURAL } from '../names.js';
import { podTemplateOf, specWithTemplate } from '../pod-template.js';
import { revisionOf } from '../template-revision.js';
import type { NginxPodTemplate } from '../template-fields.js';
import type { Nginx, NginxSpec } from '../types.js';
import { mergePatch } from './merge-patch.js';
import { RequestRefused } from './request-refused.js';
import type { WritePlan } from './write-plan.js';

/**
 * The revisions of an Nginx and the rollback to one of them, as plain functions: the ControllerRevisions the
 * controller keeps (one per pod template, numbered in rollout order).
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const time = (value: unknown): string =>
  value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';

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

/** The revision numbered `number`, else refused (404) naming it. */
export function revisionNumbered(nginx: Nginx, revisions: readonly Revision[], number: number): Revision {
  const found = revisions.find((revision) => revision.revision === number);
  if (found) return found;
  const name = nginx.metadata.name ?? '';
  const known = revisions.map((revision) => revision.revision).join(', ');
  const message = `${NGINX_PLURAL}.${NGINX_GROUP} "${name}" has no revision ${number}`;
  throw new RequestRefused(404, known ? `${message} (it has ${known})` : message, {
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

/** The 409 the API server answers a write made on a resourceVersion that is no longer the object's. */
export function conflict(name: string): RequestRefused {
  return new RequestRefused(
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
): RequestRefused | undefined {
  if (after.ingress?.tls !== true || after.tls) return undefined;
  const name = nginx.metadata.name ?? '';
  const problem =
    `revision ${revision.revision} has no spec.tls, which spec.ingress.tls (true, kept by a rollback: the Ingress ` +
    'is not part of a revision) needs: set spec.ingress.tls to false first (the Ingress then serves plain HTTP), ' +
    'or roll back to a revision with spec.tls';
  return new RequestRefused(
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
export function rollbackPlan(nginx: Nginx, revision: Revision, options: RollbackOptions): WritePlan {
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
