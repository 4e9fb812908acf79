/** The pieces of Kubernetes' names, as regular expression source (a schema's `pattern`, or `new RegExp`). */

/** An RFC 1123 label's body: lowercase alphanumerics and `-`, starting and ending alphanumeric. */
const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** An RFC 1123 subdomain's body: labels joined by dots. */
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;

/** A DNS label (RFC 1123), as Kubernetes names namespaces and our Nginxes (their length is checked apart). */
export const DNS_LABEL = `^${LABEL}$`;

/** A DNS subdomain (RFC 1123), as Kubernetes names most objects: Secrets, PriorityClasses, IngressClasses. */
export const DNS_SUBDOMAIN = `^${SUBDOMAIN}$`;

/**
 * An Ingress rule's host as Kubernetes takes it: a DNS subdomain, or `*.` and one (a wildcard of exactly one
 * leading label). An IP address is refused by the API server too (see ingressHostProblem).
 */
export const INGRESS_HOST = `^(\\*\\.)?${SUBDOMAIN}$`;

/**
 * A qualified name as Kubernetes takes it for label keys, taint keys and topology keys: an optional DNS-1123
 * subdomain prefix and `/`, then a name of at most 63 alphanumerics, `-`, `_` and `.`, starting and ending
 * alphanumeric. The prefix's own limit of 253 is checked apart (QUALIFIED_PREFIX_OK).
 */
export const QUALIFIED_NAME_PATTERN = `^(${SUBDOMAIN}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`;
