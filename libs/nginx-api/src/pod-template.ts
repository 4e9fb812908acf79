import { DEFAULT_IMAGE, DEFAULT_PORT } from './names.js';
import type { NginxResources, NginxSpec } from './types.js';

/**
 * What every pod of one revision runs, in the spec's own terms: the part of the spec a rollout moves pods to.
 * Defaults are filled in, so `image: nginx:latest` and no image are the same template.
 */
export interface NginxPodTemplate {
  image: string;
  port: number;
  config?: string;
  healthCheckPath?: string;
  resources?: NginxResources;
}

/** The spec fields a revision is made of (a rollback writes exactly these). */
export const TEMPLATE_FIELDS = ['image', 'port', 'config', 'healthCheckPath', 'resources'] as const;

function resourcesOf(resources: NginxResources | undefined): NginxResources | undefined {
  const requests =
    resources?.requests && Object.keys(resources.requests).length ? resources.requests : undefined;
  const limits = resources?.limits && Object.keys(resources.limits).length ? resources.limits : undefined;
  if (!requests && !limits) return undefined;
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

export function podTemplateOf(spec: NginxSpec): NginxPodTemplate {
  const resources = resourcesOf(spec.resources);
  return {
    image: spec.image || DEFAULT_IMAGE,
    port: spec.port ?? DEFAULT_PORT,
    ...(spec.config !== undefined ? { config: spec.config } : {}),
    ...(spec.healthCheckPath !== undefined ? { healthCheckPath: spec.healthCheckPath } : {}),
    ...(resources ? { resources } : {}),
  };
}

/** JSON with object keys sorted at every depth: equal templates give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * A short, stable name for a text: 14 lowercase base-36 characters from two 32-bit hashes of its UTF-16 code
 * units (FNV-1a and a multiply-xor), 64 bits in all. Not cryptographic: only stable and well spread, and fast
 * enough for a 256 KiB config on every sync.
 */
export function shortHash(text: string): string {
  let fnv = 0x811c9dc5;
  let mix = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ unit, 0x01000193);
    mix = Math.imul(mix ^ unit, 0x5bd1e995) ^ (mix >>> 15);
  }
  const part = (value: number) => (value >>> 0).toString(36).padStart(7, '0');
  return part(fnv) + part(mix);
}

/**
 * The revision of a pod template: a hash of its canonical JSON. Pods carry it in `mycompany.com/revision`, and
 * two specs with the same template (whatever else differs) are the same revision.
 */
export function revisionOf(template: NginxPodTemplate): string {
  return shortHash(canonicalJson(template));
}

/**
 * The server nginx runs when spec.config is not given but spec.port is not the image's 80: the official image's
 * own default server, listening on the port instead.
 */
export function defaultServerConfig(port: number): string {
  return `server {
    listen ${port};
    listen [::]:${port};
    server_name localhost;

    location / {
        root /usr/share/nginx/html;
        index index.html index.htm;
    }

    error_page 500 502 503 504 /50x.html;
    location = /50x.html {
        root /usr/share/nginx/html;
    }
}
`;
}

/**
 * What a pod of `template` gets as /etc/nginx/conf.d/default.conf: spec.config, else the default server on a
 * port other than 80, else nothing (the image's own file stays).
 */
export function mountedConfig(template: NginxPodTemplate): string | undefined {
  if (template.config !== undefined) return template.config;
  return template.port === DEFAULT_PORT ? undefined : defaultServerConfig(template.port);
}

/**
 * The name of the apps/v1 ControllerRevision that records `revision` (a hash) of the Nginx `nginxName`. It holds
 * `{ template: NginxPodTemplate }` in `data`, its number in `revision`, the labels of the Nginx's pods plus
 * `mycompany.com/revision`, and the Nginx as its controller.
 */
export function controllerRevisionName(nginxName: string, revision: string): string {
  return `${nginxName}-${revision}`;
}

/** What a ControllerRevision of an Nginx holds in `data`. */
export interface NginxRevisionData {
  template: NginxPodTemplate;
}

/**
 * The spec after a rollback to `template`: the template's fields replaced, every other field (replicas, strategy,
 * paused …) kept; optional template fields the revision did not set are removed.
 */
export function specWithTemplate(spec: NginxSpec, template: NginxPodTemplate): NginxSpec {
  const next: NginxSpec = { ...spec };
  for (const field of TEMPLATE_FIELDS) delete next[field];
  return { ...next, ...structuredClone(template) };
}
