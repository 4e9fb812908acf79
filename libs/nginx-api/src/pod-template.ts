import { DEFAULT_PORT } from './names.js';
import { nginxSpecSchema, type JsonSchema } from './schema.js';
import {
  TEMPLATE_FIELDS,
  templateFields,
  type NginxPodTemplate,
  type TemplateFieldName,
} from './template-fields.js';
import { TLS_CONFIG_KEY, tlsServerConfig } from './tls.js';
import type { NginxSpec } from './types.js';

/** One row of the template table with its field's type erased, to walk the table generically. */
interface AnyTemplateField {
  of?: (value: unknown) => unknown;
  default?: unknown;
}

const fieldOf = (name: TemplateFieldName) => templateFields[name] as AnyTemplateField;

/** The pod template of a spec: each template field as the table reads it, defaults filled, absent ones left out. */
export function podTemplateOf(spec: NginxSpec): NginxPodTemplate {
  const template: Record<string, unknown> = {};
  for (const name of TEMPLATE_FIELDS) {
    const field = fieldOf(name);
    const value = field.of ? field.of(spec[name]) : spec[name];
    const filled =
      (value === undefined || value === null) && field.default !== undefined ? field.default : value;
    if (filled !== undefined) template[name] = filled;
  }
  return template as NginxPodTemplate;
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

/** The schema of a pod template (a revision's `template`): the spec's schemas of its fields. */
export const podTemplateSchema: JsonSchema = {
  type: 'object',
  description: `What every pod of the revision runs: ${TEMPLATE_FIELDS.join(', ')}.`,
  required: TEMPLATE_FIELDS.filter((name) => fieldOf(name).default !== undefined),
  properties: Object.fromEntries(TEMPLATE_FIELDS.map((name) => [name, nginxSpecSchema.properties![name]!])),
};

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

// --- TLS (issue 34) ---

/** The file of the mounted config directory that holds spec.config (or the default server). */
export const DEFAULT_CONFIG_KEY = 'default.conf';

/**
 * What a pod of `template` gets in /etc/nginx/conf.d, file name to text, or undefined when it mounts nothing
 * (the image's own default.conf stays): default.conf as mountedConfig says, and with spec.tls also the TLS
 * wrapper (tls.conf, see tlsServerConfig) beside default.conf, which is then always mounted (the image's default
 * server on port 80 when spec.config is unset), since the mount replaces the directory.
 */
export function mountedConfigFiles(template: NginxPodTemplate): Record<string, string> | undefined {
  const config = mountedConfig(template);
  if (!template.tls) return config === undefined ? undefined : { [DEFAULT_CONFIG_KEY]: config };
  return {
    [DEFAULT_CONFIG_KEY]: config ?? defaultServerConfig(template.port),
    [TLS_CONFIG_KEY]: tlsServerConfig(template.port),
  };
}

/**
 * The text a config ConfigMap's name hashes: default.conf's text when it is the only file (so the ConfigMaps of
 * revisions without spec.tls keep the names they always had), else every file's name and text.
 */
export function configFilesDigestText(files: Record<string, string>): string {
  const names = Object.keys(files).sort();
  if (names.length === 1 && names[0] === DEFAULT_CONFIG_KEY) return files[DEFAULT_CONFIG_KEY]!;
  return names.map((name) => `${name}\0${files[name]}`).join('\0');
}
