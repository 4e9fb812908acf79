import { namespaceError, validateNginx, type FieldError } from '@ngx/nginx-api';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '@/lib/api/api-client';

/** A YAML manifest for a new Nginx, read and checked. */
export interface YamlCheck {
  /** The manifest, only when it has no problem. */
  object?: Record<string, unknown>;
  /** Where it is created: its metadata.namespace, else the fallback. */
  namespace?: string;
  /** One line per problem, `spec.replicas: …`, as the API server would name them. */
  problems: string[];
}

/**
 * Parses `text` and checks it against the shared schema as the API server will: a syntax error is one problem;
 * a manifest also needs metadata.name, and its namespace (or `fallbackNamespace`) must be a valid name.
 */
export function checkYaml(text: string, fallbackNamespace: string): YamlCheck {
  let object: unknown;
  try {
    object = parseYaml(text);
  } catch (error) {
    return { problems: [`YAML: ${errorMessage(error).split('\n')[0]}`] };
  }
  const errors: FieldError[] = validateNginx(object);
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } } | null)?.metadata;
  if (typeof object === 'object' && object !== null && metadata?.name === undefined)
    errors.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value' });
  const namespace = typeof metadata?.namespace === 'string' ? metadata.namespace : fallbackNamespace;
  const namespaceProblem = namespaceError(namespace);
  if (namespaceProblem)
    errors.push({ field: 'metadata.namespace', reason: 'FieldValueInvalid', message: namespaceProblem });
  return {
    object: errors.length ? undefined : (object as Record<string, unknown>),
    namespace,
    problems: errors.map((e) => (e.message.startsWith(e.field) ? e.message : `${e.field}: ${e.message}`)),
  };
}
