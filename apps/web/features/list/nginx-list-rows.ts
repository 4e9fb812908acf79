import type { Nginx } from '@ngx/nginx-api';
import { createdAt, desiredOf, healthRank, imageOf, readyOf } from '@/lib/nginx/nginx-view';

/** The columns the list sorts by. */
export type SortKey = 'name' | 'namespace' | 'ready' | 'updated' | 'conditions' | 'image' | 'age';

export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
}

const text = (value: string | undefined) => value ?? '';
/** part/desired, with nothing desired counting as all there. */
const ratio = (part: number, nginx: Nginx) => (desiredOf(nginx) === 0 ? 1 : part / desiredOf(nginx));
const updatedOf = (nginx: Nginx) => nginx.status?.updatedReplicas ?? 0;

const COMPARE: Record<SortKey, (a: Nginx, b: Nginx) => number> = {
  name: (a, b) => text(a.metadata.name).localeCompare(text(b.metadata.name)),
  namespace: (a, b) => text(a.metadata.namespace).localeCompare(text(b.metadata.namespace)),
  ready: (a, b) => ratio(readyOf(a), a) - ratio(readyOf(b), b) || desiredOf(a) - desiredOf(b),
  updated: (a, b) => ratio(updatedOf(a), a) - ratio(updatedOf(b), b) || desiredOf(a) - desiredOf(b),
  conditions: (a, b) => healthRank(a) - healthRank(b),
  image: (a, b) => imageOf(a).localeCompare(imageOf(b)),
  // Ascending age: the youngest first.
  age: (a, b) => text(createdAt(b)).localeCompare(text(createdAt(a))),
};

const byKey = (a: Nginx, b: Nginx) => COMPARE.namespace(a, b) || COMPARE.name(a, b);

/**
 * The rows to show: those whose name, namespace or image contains `filter` (case-insensitive, trimmed), sorted
 * by `sort` with namespace/name breaking ties, so the order is total and stable. A new array; `nginxes` is untouched.
 */
export function visibleRows(nginxes: readonly Nginx[], filter: string, sort: Sort): Nginx[] {
  const needle = filter.trim().toLowerCase();
  const matching = needle
    ? nginxes.filter(
        (n) =>
          text(n.metadata.name).toLowerCase().includes(needle) ||
          text(n.metadata.namespace).toLowerCase().includes(needle) ||
          imageOf(n).toLowerCase().includes(needle),
      )
    : nginxes.slice();
  const compare = COMPARE[sort.key];
  const sign = sort.dir === 'asc' ? 1 : -1;
  return matching.sort((a, b) => sign * compare(a, b) || byKey(a, b));
}

/** The next sort after a click on `key`: the same column flips direction, another one starts ascending. */
export const nextSort = (current: Sort, key: SortKey): Sort =>
  current.key === key ? { key, dir: current.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' };
