import { describe, expect, it } from 'vitest';
import { StatusError } from '@/lib/api/api-client';
import { errorText, readPhase } from './query-state';

describe('readPhase', () => {
  it('is loading while a request is in flight, whatever the last one did', () => {
    expect(readPhase({ isFetching: true, isError: false })).toBe('loading');
    expect(readPhase({ isFetching: true, isError: true })).toBe('loading');
  });

  it('is error when the latest request failed, else ready', () => {
    expect(readPhase({ isFetching: false, isError: true })).toBe('error');
    expect(readPhase({ isFetching: false, isError: false })).toBe('ready');
  });
});

describe('errorText', () => {
  it('says nothing without an error, and the message of one', () => {
    expect(errorText(null)).toBeUndefined();
    expect(errorText(undefined)).toBeUndefined();
    expect(errorText(new StatusError(403, 'Forbidden', 'not allowed'))).toBe('not allowed');
  });
});
