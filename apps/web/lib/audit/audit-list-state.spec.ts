import { describe, expect, it } from 'vitest';
import {
  auditListReducer,
  initialAuditList,
  type AuditListAction,
  type AuditListState,
} from './audit-list-state';

type Row = { id: number };
const rows = (...ids: number[]): Row[] => ids.map((id) => ({ id }));
const run = (...actions: AuditListAction<Row>[]): AuditListState<Row> =>
  actions.reduce(auditListReducer<Row>, initialAuditList<Row>());

describe('auditListReducer', () => {
  it('loads the first page of the current generation', () => {
    const state = run(
      { type: 'reset', generation: 1 },
      { type: 'page', generation: 1, items: rows(3, 2), continue: 'c1', more: false },
    );
    expect(state).toMatchObject({ phase: 'ready', items: rows(3, 2), continue: 'c1', loadingMore: false });
  });

  it('ignores a late answer for an earlier generation', () => {
    const state = run(
      { type: 'reset', generation: 1 },
      { type: 'reset', generation: 2 },
      { type: 'page', generation: 1, items: rows(9), more: false },
      { type: 'failed', generation: 1, error: 'old', more: false },
    );
    expect(state).toMatchObject({ generation: 2, phase: 'loading', items: [] });
  });

  it('appends the next page without repeating records', () => {
    const state = run(
      { type: 'reset', generation: 1 },
      { type: 'page', generation: 1, items: rows(5, 4), continue: 'c1', more: false },
      { type: 'loadingMore', generation: 1 },
    );
    expect(state.loadingMore).toBe(true);
    const next = auditListReducer(state, { type: 'page', generation: 1, items: rows(4, 3), more: true });
    expect(next).toMatchObject({ items: rows(5, 4, 3), continue: undefined, loadingMore: false });
  });

  it('keeps the rows when a next page fails, and empties the list when the first does', () => {
    const ready = run(
      { type: 'reset', generation: 1 },
      { type: 'page', generation: 1, items: rows(1), continue: 'c', more: false },
    );
    expect(
      auditListReducer(ready, { type: 'failed', generation: 1, error: 'boom', more: true }),
    ).toMatchObject({
      items: rows(1),
      continue: 'c',
      moreError: 'boom',
      loadingMore: false,
    });
    expect(
      auditListReducer(ready, { type: 'failed', generation: 1, error: 'boom', more: false }),
    ).toMatchObject({
      phase: 'error',
      items: [],
      error: 'boom',
    });
  });

  it('starts over on reset', () => {
    const ready = run(
      { type: 'reset', generation: 1 },
      { type: 'page', generation: 1, items: rows(1), more: false },
    );
    expect(auditListReducer(ready, { type: 'reset', generation: 2 })).toEqual({
      ...initialAuditList(),
      generation: 2,
    });
  });
});
