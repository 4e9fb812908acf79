/** One list of audit records as the page holds it, for the request generation that filled it. */
export interface AuditListState<T> {
  /** Which request (per filter change) the state belongs to; answers for any other are ignored. */
  generation: number;
  phase: 'loading' | 'ready' | 'error';
  items: T[];
  /** The cursor of the next page, when there is one. */
  continue?: string;
  error?: string;
  loadingMore: boolean;
  moreError?: string;
}

export type AuditListAction<T> =
  | { type: 'reset'; generation: number }
  | { type: 'page'; generation: number; items: T[]; continue?: string; more: boolean }
  | { type: 'failed'; generation: number; error: string; more: boolean }
  | { type: 'loadingMore'; generation: number };

/** The state before the first answer. */
export const initialAuditList = <T>(): AuditListState<T> => ({
  generation: 0,
  phase: 'loading',
  items: [],
  loadingMore: false,
});

/**
 * The audit list's reducer. Guarantees: a `reset` starts a new generation and empties the list; an answer for
 * any other generation than the current one changes nothing (a late answer never overwrites a newer one); a
 * next page is appended without the records already shown (by id).
 */
export function auditListReducer<T extends { id: number }>(
  state: AuditListState<T>,
  action: AuditListAction<T>,
): AuditListState<T> {
  if (action.type === 'reset') return { ...initialAuditList<T>(), generation: action.generation };
  if (action.generation !== state.generation) return state;
  switch (action.type) {
    case 'loadingMore':
      return { ...state, loadingMore: true, moreError: undefined };
    case 'page': {
      if (!action.more) return { ...state, phase: 'ready', items: action.items, continue: action.continue };
      const seen = new Set(state.items.map((item) => item.id));
      return {
        ...state,
        items: [...state.items, ...action.items.filter((item) => !seen.has(item.id))],
        continue: action.continue,
        loadingMore: false,
      };
    }
    case 'failed':
      return action.more
        ? { ...state, loadingMore: false, moreError: action.error }
        : { ...state, phase: 'error', items: [], continue: undefined, error: action.error };
  }
}
