import type { Request } from 'express';
import { parse } from 'yaml';
import { StatusException } from './kube-status.js';

/** Largest request body accepted (the API server's own limit is 3 MiB; ours is tighter). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the raw request body, refusing with 413 once it passes `limit` bytes (without reading the rest). */
export async function readRawBody(request: Request, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      request.unpipe();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): StatusException {
  return new StatusException(413, `the request body is larger than ${limit} bytes`);
}

/** The media types a write may carry, as the API server accepts them for custom resources. */
export const BODY_TYPES = {
  json: 'application/json',
  yaml: 'application/yaml',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/**
 * The media type of a request's body, without its parameters (`; charset=utf-8`). A request that names none is
 * JSON, as the API server reads it for every verb: so a PATCH without one is refused 415 (no patch type is JSON).
 */
export function mediaType(request: Request): string {
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' ? BODY_TYPES.json : type;
}

/**
 * Parses a body as its media type says (JSON, or YAML for apply patches and application/yaml), answering 400
 * for malformed input and 415 (in the API server's words) for types the route does not take. Returns the parsed
 * document.
 */
export function parseBody(raw: Buffer, type: string, accepted: readonly string[]): unknown {
  if (!accepted.includes(type))
    throw new StatusException(
      415,
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    );
  if (raw.length === 0) throw new StatusException(400, 'the request body is empty');
  const text = raw.toString('utf8');
  const kind = type.includes('yaml') ? 'YAML' : 'JSON';
  let body: unknown;
  try {
    body = type === BODY_TYPES.yaml || type === BODY_TYPES.apply ? parse(text) : JSON.parse(text);
  } catch (error) {
    throw new StatusException(
      400,
      `the request body is not valid ${kind}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  // Refused here, as kube-apiserver refuses it, rather than overflowing the stack of whatever walks it next
  // (the checks, JSON.stringify on the way to the API server or back: a 500).
  if (nestedDeeperThan(body, MAX_BODY_DEPTH))
    throw new StatusException(
      400,
      `the request body is not valid ${kind}: exceeded max depth of ${MAX_BODY_DEPTH}`,
    );
  return body;
}

/** The deepest nesting of objects and arrays a body may have: kube-apiserver's (Go's JSON and YAML decoders'). */
export const MAX_BODY_DEPTH = 10_000;

/** Whether objects and arrays in `value` nest more than `limit` deep (the outermost one is depth 1); no recursion. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
