import type { JsonSchema } from '@ngx/nginx-api';

/** Small builders for the OpenAPI document's parts, shared by every section of it. */

export type Parameter = {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  schema: JsonSchema;
};
export type Operation = Record<string, unknown>;

export const pathParam = (name: string, description: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

export const queryParam = (
  name: string,
  description: string,
  schema: JsonSchema = { type: 'string' },
): Parameter => ({ name, in: 'query', description, schema });

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A JSON response with this schema. */
export const json = (schema: unknown, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
});

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Malformed body, parameter or path segment; unknown fields under strict validation',
  401: 'No or unknown bearer token',
  403: "The token's role may not do this",
  404: 'No such object',
  409: 'AlreadyExists, or a Conflict on resourceVersion',
  413: 'Body larger than 1 MiB',
  415: 'Unsupported Content-Type',
  422: 'Invalid: field values the schema refuses, one cause per field',
  429: 'Rate limit of the token exceeded (see Retry-After)',
  503: 'The Kubernetes API server or a cache is not available',
};

/** `Status` responses for these codes, each with what it means here (or a meaning of the caller's). */
export const errors = (...codes: (number | [number, string])[]) =>
  Object.fromEntries(
    codes.map((entry) => {
      const [code, meaning] = typeof entry === 'number' ? [entry, ERROR_MEANINGS[entry] ?? 'Error'] : entry;
      return [String(code), json(schemaRef('Status'), meaning)];
    }),
  );
