import {
  DEFAULT_REGISTRY,
  EXPLICIT_REGISTRY_PATTERN,
  IMAGE_ID_PATTERN,
  LEGACY_DEFAULT_REGISTRY,
  NORMALISED_REFERENCE_PATTERN,
  OFFICIAL_IMAGES,
  REGISTRY_PATTERN,
  REPOSITORY_PATTERN,
  isImageReference,
  normaliseImage,
} from './image-reference.js';
import { DEFAULT_IMAGE } from './names.js';
import type { ValidationRule } from './schema.js';
import type { FieldError } from './validation.js';

/**
 * The images an Nginx may run (IMAGE_ALLOWLIST), as `parseImageAllowlist` makes it: normalised prefixes, each
 * either ending in `/` (everything below that registry or path) or naming a repository (that repository with any
 * tag or digest, and the repositories below it: `registry.example.com/web` admits `registry.example.com/web/x`
 * and `registry.example.com/web:1`, never `registry.example.com/website`).
 */
export interface ImageAllowlist {
  readonly prefixes: readonly string[];
}

/** An IMAGE_ALLOWLIST entry that cannot be read as a prefix. */
export class ImageAllowlistError extends Error {
  override name = 'ImageAllowlistError';
}

const registryHost = new RegExp(`^${REGISTRY_PATTERN}$`);
const pathPrefix = new RegExp(`^${REGISTRY_PATTERN}/(?:${REPOSITORY_PATTERN}/)?$`);
const repositoryPrefix = new RegExp(NORMALISED_REFERENCE_PATTERN);

/** One entry as a normalised prefix: `docker.io/nginx` is `docker.io/library/nginx`, a bare registry gets its `/`. */
function parsePrefix(entry: string): string {
  const host = entry.split('/', 1)[0]!;
  const named = /[.:]/.test(host) || host === 'localhost';
  if (!named || !registryHost.test(host) || /[A-Z]/.test(host))
    throw new ImageAllowlistError(
      `"${entry}" must start with a registry host in lower case, as in docker.io/library/nginx or registry.example.com/web/`,
    );
  const written = entry.includes('/') ? entry : `${entry}/`;
  if (written.endsWith('/')) {
    // A path prefix: only the registry's old name is rewritten (docker.io/ must not become docker.io/library/).
    const prefix = written.startsWith(`${LEGACY_DEFAULT_REGISTRY}/`)
      ? `${DEFAULT_REGISTRY}/${written.slice(LEGACY_DEFAULT_REGISTRY.length + 1)}`
      : written;
    if (!pathPrefix.test(prefix)) throw new ImageAllowlistError(`"${entry}" is not a registry or image path`);
    return prefix;
  }
  const prefix = normaliseImage(written);
  if (prefix === `${OFFICIAL_IMAGES}library`)
    throw new ImageAllowlistError(
      `"${entry}" names the image ${prefix}; write ${OFFICIAL_IMAGES} for every official image`,
    );
  if (!repositoryPrefix.test(prefix))
    throw new ImageAllowlistError(
      `"${entry}" is not an image reference ([registry/]repository[:tag][@digest], lower case)`,
    );
  return prefix;
}

/**
 * IMAGE_ALLOWLIST's comma-separated prefixes, normalised and without duplicates; undefined when it names none (no
 * allow-list: any image). Throws ImageAllowlistError naming the first entry it cannot read.
 */
export function parseImageAllowlist(text: string | undefined): ImageAllowlist | undefined {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  return { prefixes: [...new Set(entries.map(parsePrefix))] };
}

function underPrefix(named: string, prefix: string): boolean {
  if (prefix.endsWith('/')) return named.startsWith(prefix);
  return named === prefix || ['/', ':', '@'].some((boundary) => named.startsWith(`${prefix}${boundary}`));
}

/** Whether `image` is a valid reference whose normalised form falls under one of the allow-list's prefixes. */
export function imageAllowed(image: string, allowlist: ImageAllowlist): boolean {
  if (!isImageReference(image)) return false;
  const named = normaliseImage(image);
  return allowlist.prefixes.some((prefix) => underPrefix(named, prefix));
}

const REFERENCE_MESSAGE =
  'must be an image reference: [registry/]repository[:tag][@digest], the repository in lower case';
const allowedList = (allowlist: ImageAllowlist) => allowlist.prefixes.join(', ');

/**
 * Why `image` (spec.image of a write) may not run under `allowlist`, as field errors; none without an allow-list
 * or for a value that is not a string (the schema reports that). `undefined` is an absent spec.image: fine when
 * the default image (DEFAULT_IMAGE, which the API server fills in) is allowed, otherwise required, as the CRD
 * built with this allow-list makes it (see `nginxCrd`).
 */
export function imageAllowlistErrors(
  image: unknown,
  allowlist: ImageAllowlist | undefined,
  field = 'spec.image',
): FieldError[] {
  if (!allowlist || (image !== undefined && typeof image !== 'string')) return [];
  if (image === undefined)
    return imageAllowed(DEFAULT_IMAGE, allowlist)
      ? []
      : [
          {
            field,
            reason: 'FieldValueRequired',
            message: `Required value: the default image ${DEFAULT_IMAGE} is under none of the allowed image prefixes (${allowedList(allowlist)})`,
          },
        ];
  if (imageAllowed(image, allowlist)) return [];
  if (!isImageReference(image))
    return [
      {
        field,
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(image)}: ${field} ${REFERENCE_MESSAGE}`,
      },
    ];
  return [
    {
      field,
      reason: 'FieldValueForbidden',
      message: `Forbidden: ${field} ${JSON.stringify(image)} (${normaliseImage(image)}) is under none of the allowed image prefixes: ${allowedList(allowlist)}`,
    },
  ];
}

/** A CEL string literal of text that needs no escapes (every pattern and prefix here is such). */
function celString(text: string): string {
  if (/['\\\n\r]/.test(text)) throw new Error(`not a plain CEL string: ${text}`);
  return `'${text}'`;
}

/**
 * `self` (spec.image) normalised, as a one-element list to bind it to `n`: the same three steps as
 * `normaliseImage`, in CEL with the strings extension (`substring`) Kubernetes gives CRD validation rules.
 */
const CEL_NORMALISED = [
  `[self.matches(${celString(EXPLICIT_REGISTRY_PATTERN)}) ? self : ${celString(`${DEFAULT_REGISTRY}/`)} + self]`,
  `.map(n, n.startsWith(${celString(`${LEGACY_DEFAULT_REGISTRY}/`)}) ? ${celString(`${DEFAULT_REGISTRY}/`)} + n.substring(${LEGACY_DEFAULT_REGISTRY.length + 1}) : n)`,
  `.map(n, n.startsWith(${celString(`${DEFAULT_REGISTRY}/`)}) && !n.substring(${DEFAULT_REGISTRY.length + 1}).contains('/') ? ${celString(OFFICIAL_IMAGES)} + n.substring(${DEFAULT_REGISTRY.length + 1}) : n)`,
].join('');

function celUnderPrefix(prefix: string): string {
  if (prefix.endsWith('/')) return `n.startsWith(${celString(prefix)})`;
  return [
    `n == ${celString(prefix)}`,
    ...['/', ':', '@'].map((boundary) => `n.startsWith(${celString(`${prefix}${boundary}`)})`),
  ].join(' || ');
}

/**
 * The CEL rules (x-kubernetes-validations on spec.image) that make the API server refuse what
 * `imageAllowlistErrors` refuses, generated from the same prefixes and patterns: a valid reference, then one
 * under an allowed prefix.
 */
export function imageAllowlistRules(allowlist: ImageAllowlist): ValidationRule[] {
  return [
    {
      rule: `!self.matches(${celString(IMAGE_ID_PATTERN)}) && ${CEL_NORMALISED}.all(n, n.matches(${celString(NORMALISED_REFERENCE_PATTERN)}))`,
      message: REFERENCE_MESSAGE,
      reason: 'FieldValueInvalid',
    },
    {
      rule: `${CEL_NORMALISED}.all(n, ${allowlist.prefixes.map(celUnderPrefix).join(' || ')})`,
      message: `must name an image under one of the allowed prefixes: ${allowedList(allowlist)} (an image without a registry is on ${DEFAULT_REGISTRY}: nginx:1.27 is ${normaliseImage('nginx:1.27')})`,
      reason: 'FieldValueForbidden',
    },
  ];
}
