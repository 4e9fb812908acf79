import type { V1ObjectMeta } from '@kubernetes/client-node';
import { StatusException } from '../http/kube-status.js';

/**
 * Label and field selectors with the API server's grammar, for list requests served from the informer cache
 * (relayed requests are filtered by the API server itself). Written here because client-node only builds
 * selector strings; it has no parser or matcher.
 */
export type Matcher = (metadata: V1ObjectMeta) => boolean;

const KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

function invalid(what: string, selector: string, why: string): StatusException {
  return new StatusException(400, `unable to parse ${what} "${selector}": ${why}`, {
    causes: [
      {
        reason: 'FieldValueInvalid',
        field: what === 'label selector' ? 'labelSelector' : 'fieldSelector',
        message: why,
      },
    ],
  });
}

/** Splits on commas that are not inside parentheses. */
function requirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  parts.push(current.trim());
  return parts.filter((part) => part.length > 0);
}

/** Labels are read by own property only: `constructor` or `__proto__` are label keys like any other. */
const has = (labels: Record<string, string>, key: string) => Object.hasOwn(labels, key);
const labelValue = (labels: Record<string, string>, key: string) =>
  has(labels, key) ? labels[key] : undefined;

/** Parses a label selector (`a=b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`) into a matcher. */
export function labelMatcher(selector: string | undefined): Matcher {
  if (!selector?.trim()) return () => true;
  const tests = requirements(selector).map((requirement): ((labels: Record<string, string>) => boolean) => {
    const checkKey = (key: string) => {
      if (!KEY.test(key)) throw invalid('label selector', selector, `invalid label key "${key}"`);
      return key;
    };
    const checkValue = (value: string) => {
      if (!VALUE.test(value)) throw invalid('label selector', selector, `invalid label value "${value}"`);
      return value;
    };
    let match = /^(\S+?)\s+(in|notin)\s+\(([^()]*)\)$/.exec(requirement);
    if (match) {
      const key = checkKey(match[1]!);
      const values = new Set(match[3]!.split(',').map((v) => checkValue(v.trim())));
      return match[2] === 'in'
        ? (labels) => has(labels, key) && values.has(labels[key]!)
        : (labels) => !has(labels, key) || !values.has(labels[key]!);
    }
    match = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(requirement);
    if (match) {
      const key = checkKey(match[1]!);
      const value = checkValue(match[3]!);
      return match[2] === '!='
        ? (labels) => labelValue(labels, key) !== value
        : (labels) => labelValue(labels, key) === value;
    }
    match = /^(!?)\s*([^=!\s()]+)$/.exec(requirement);
    if (match) {
      const key = checkKey(match[2]!);
      return match[1] ? (labels) => !has(labels, key) : (labels) => has(labels, key);
    }
    throw invalid('label selector', selector, `cannot parse requirement "${requirement}"`);
  });
  return (metadata) => tests.every((test) => test(metadata.labels ?? {}));
}

/** The fields custom resources can be selected by. */
const FIELDS = new Map<string, (metadata: V1ObjectMeta) => string | undefined>([
  ['metadata.name', (m) => m.name],
  ['metadata.namespace', (m) => m.namespace],
]);

/** Parses a field selector over metadata.name and metadata.namespace (`=`, `==`, `!=`). */
export function fieldMatcher(selector: string | undefined): Matcher {
  if (!selector?.trim()) return () => true;
  const tests = selector.split(',').map((requirement): Matcher => {
    const match = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(\S*)\s*$/.exec(requirement);
    if (!match) throw invalid('field selector', selector, `invalid selector "${requirement}"`);
    const read = FIELDS.get(match[1]!);
    if (!read) throw invalid('field selector', selector, `field label not supported: ${match[1]}`);
    const value = match[3]!;
    return match[2] === '!=' ? (m) => read(m) !== value : (m) => read(m) === value;
  });
  return (metadata) => tests.every((test) => test(metadata));
}
