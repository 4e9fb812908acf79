import type { Request } from 'express';
import { invalidParam, rawParam, type QueryParams } from '../http/query-params.js';
import { printable } from '../http/path-params.js';

/**
 * The query parameters the API server takes on the requests we relay, with what each value may be. A Map, so a
 * parameter named after an Object.prototype member (`valueOf`, `__proto__`, `constructor`) is simply unknown.
 */
const PARAMETERS = new Map<string, (value: string) => boolean>(
  Object.entries({
    pretty: isBoolean,
    labelSelector: () => true,
    fieldSelector: () => true,
    limit: isCount,
    continue: () => true,
    // Opaque to clients, but an etcd revision on every API server, which answers 500 to anything else.
    resourceVersion: (v) => /^\d{0,20}$/.test(v),
    resourceVersionMatch: (v) => v === 'NotOlderThan' || v === 'Exact',
    watch: isBoolean,
    allowWatchBookmarks: isBoolean,
    timeoutSeconds: isCount,
    sendInitialEvents: isBoolean,
    dryRun: (v) => v === 'All',
    fieldManager: (v) => v.length <= 128 && [...v].every((c) => c >= ' ' && c !== '\u007f'),
    fieldValidation: (v) => v === 'Strict' || v === 'Warn' || v === 'Ignore',
    force: isBoolean,
    propagationPolicy: (v) => v === 'Foreground' || v === 'Background' || v === 'Orphan',
    gracePeriodSeconds: isCount,
    orphanDependents: isBoolean,
  }),
);

function isBoolean(value: string): boolean {
  return value === 'true' || value === 'false' || value === '1' || value === '0' || value === '';
}

function isCount(value: string): boolean {
  return /^\d{1,10}$/.test(value);
}

export type KubeQuery = Record<string, string>;

/**
 * The request's query parameters that the API server understands, checked: a parameter given twice or with a
 * value it cannot take is answered 400 here, naming it. Others are dropped, as the API server ignores them.
 */
export function kubeQuery(request: Request): KubeQuery {
  const given = request.query as QueryParams;
  const query: KubeQuery = {};
  for (const name of Object.keys(given)) {
    const accepts = PARAMETERS.get(name);
    if (!accepts) continue;
    const value = rawParam(given, name)!;
    if (!accepts(value)) throw invalidParam(name, `has an invalid value "${printable(value)}"`);
    query[name] = value;
  }
  return query;
}

/**
 * Whether a boolean parameter is on, as the API server reads it: given, and neither `false` nor `0`. So `?watch=`
 * is a watch there, and must be one here too (a relayed "list" would stream forever).
 */
export const isTrue = (value: string | undefined): boolean =>
  value !== undefined && value !== '0' && value.toLowerCase() !== 'false';
