import { describe, expect, it } from 'vitest';
import { auditItems, auditListOf, type AuditQueryView } from './audit-list-state';

type Row = { id: number };
const page = (ids: number[], next?: string) => ({
  metadata: next ? { continue: next } : {},
  items: ids.map((id) => ({ id })),
});
const rows = (...ids: number[]): Row[] => ids.map((id) => ({ id }));
const view = (over: Partial<AuditQueryView<Row>>): AuditQueryView<Row> => ({
  pages: undefined,
  isFetching: false,
  isFetchingNextPage: false,
  isFetchNextPageError: false,
  error: null,
  ...over,
});

describe('auditItems', () => {
  it('joins the pages in order without repeating records', () => {
    expect(auditItems([page([5, 4], 'c1'), page([4, 3])])).toEqual(rows(5, 4, 3));
  });
});

describe('auditListOf', () => {
  it('is loading until the first page is there', () => {
    expect(auditListOf(view({ isFetching: true }))).toEqual({
      phase: 'loading',
      items: [],
      loadingMore: false,
    });
  });

  it('shows the first page and its cursor', () => {
    expect(auditListOf(view({ pages: [page([3, 2], 'c1')] }))).toMatchObject({
      phase: 'ready',
      items: rows(3, 2),
      continue: 'c1',
      loadingMore: false,
    });
  });

  it('appends the next page without repeating records, and has no cursor at the end', () => {
    const loading = auditListOf(
      view({ pages: [page([5, 4], 'c1')], isFetching: true, isFetchingNextPage: true }),
    );
    expect(loading.loadingMore).toBe(true);
    expect(auditListOf(view({ pages: [page([5, 4], 'c1'), page([4, 3])] }))).toMatchObject({
      items: rows(5, 4, 3),
      continue: undefined,
      loadingMore: false,
    });
  });

  it('keeps the rows when a next page fails, and has no rows when the first does', () => {
    const boom = new Error('boom');
    expect(
      auditListOf(view({ pages: [page([1], 'c')], isFetchNextPageError: true, error: boom })),
    ).toMatchObject({ phase: 'ready', items: rows(1), continue: 'c', moreError: 'boom', loadingMore: false });
    expect(auditListOf(view({ error: boom }))).toMatchObject({ phase: 'error', items: [], error: 'boom' });
  });

  it('forgets a next page failure while it is tried again, and a first page failure while it is asked again', () => {
    const boom = new Error('boom');
    expect(
      auditListOf(
        view({
          pages: [page([1], 'c')],
          isFetchNextPageError: true,
          isFetching: true,
          isFetchingNextPage: true,
          error: boom,
        }),
      ).moreError,
    ).toBeUndefined();
    expect(auditListOf(view({ error: boom, isFetching: true })).phase).toBe('loading');
  });
});
