/**
 * Container image references as the kubelet and containerd read them (distribution/reference's
 * ParseNormalizedNamed): `nginx:1.27` is `docker.io/library/nginx:1.27`. Every step here is written so that the
 * CRD's CEL rule (image-allowlist.ts) can take it over word for word: the regular expressions are RE2 as much as
 * JavaScript (no backslashes, no lookarounds), and each step is one `startsWith`, `substring` or `matches`.
 */

/** The registry of a reference that names none, and the path official images live under there. */
export const DEFAULT_REGISTRY = 'docker.io';
export const OFFICIAL_IMAGES = `${DEFAULT_REGISTRY}/library/`;
/** Docker Hub's old name, read as docker.io. */
export const LEGACY_DEFAULT_REGISTRY = 'index.docker.io';

/**
 * A reference whose first path component is a registry host: one holding a `.` or a `:` (a port), one with an
 * upper-case letter, or `localhost`. Anything else (`nginx`, `bitnami/nginx`) is on the default registry.
 */
export const EXPLICIT_REGISTRY_PATTERN = '^(?:localhost|[^/]*[.:A-Z][^/]*)/';

const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const HOST_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
/** A registry host (IP literals in brackets are not taken) and an optional port. */
export const REGISTRY_PATTERN = `${HOST_COMPONENT}(?:[.]${HOST_COMPONENT})*(?::[0-9]+)?`;
/** Repository path components: lower-case letters and digits joined by `.`, `_`, `__` or dashes. */
export const REPOSITORY_PATTERN = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}';

/** A normalised reference: `registry/repository[:tag][@digest]`, the grammar of distribution/reference. */
export const NORMALISED_REFERENCE_PATTERN = `^${REGISTRY_PATTERN}/${REPOSITORY_PATTERN}(?::${TAG})?(?:@${DIGEST})?$`;
/** A bare 64-hex image ID, which ParseNormalizedNamed refuses as a reference. */
export const IMAGE_ID_PATTERN = '^[a-f0-9]{64}$';

const explicitRegistry = new RegExp(EXPLICIT_REGISTRY_PATTERN);
const normalisedReference = new RegExp(NORMALISED_REFERENCE_PATTERN);
const imageId = new RegExp(IMAGE_ID_PATTERN);

/**
 * The fully qualified form of `image`: the default registry when it names none, `index.docker.io` read as
 * `docker.io`, and `library/` before a one-component name there. Says nothing about validity (see
 * `isImageReference`); a tag or digest is kept as written.
 */
export function normaliseImage(image: string): string {
  let named = explicitRegistry.test(image) ? image : `${DEFAULT_REGISTRY}/${image}`;
  if (named.startsWith(`${LEGACY_DEFAULT_REGISTRY}/`))
    named = `${DEFAULT_REGISTRY}/${named.slice(LEGACY_DEFAULT_REGISTRY.length + 1)}`;
  const onDefault = named.startsWith(`${DEFAULT_REGISTRY}/`);
  if (onDefault && !named.slice(DEFAULT_REGISTRY.length + 1).includes('/'))
    named = `${OFFICIAL_IMAGES}${named.slice(DEFAULT_REGISTRY.length + 1)}`;
  return named;
}

/**
 * Whether the kubelet could pull `image`: its normalised form fits the reference grammar and it is not a bare
 * image ID. Stricter than distribution/reference in two corners, both refused rather than guessed at: IP-literal
 * registries (`[::1]:5000/x`) and a registry-less first component that is not a host (`a_b.c/x`).
 */
export function isImageReference(image: string): boolean {
  return !imageId.test(image) && normalisedReference.test(normaliseImage(image));
}
