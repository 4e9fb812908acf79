import { describe, expect, it } from 'vitest';
import { makeQueryClient } from './query-client';
import { queryKeys } from './query-keys';

describe('makeQueryClient', () => {
  it('never retries by itself, nor refetches on focus or reconnect, and drops what nobody shows', () => {
    const queries = makeQueryClient().getDefaultOptions().queries;
    expect(queries).toMatchObject({
      retry: false,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
      staleTime: 0,
      gcTime: 0,
    });
  });

  it('answers a failed read with its error after one request', async () => {
    const client = makeQueryClient();
    let calls = 0;
    await expect(
      client.fetchQuery({
        queryKey: ['failing'],
        queryFn: () => {
          calls++;
          throw new Error('boom');
        },
      }),
    ).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });
});

describe('queryKeys', () => {
  it('starts everything about one Nginx with its key, so one prefix reaches all of it', () => {
    const prefix = queryKeys.nginx('ns', 'web');
    for (const key of [
      queryKeys.events('ns', 'web'),
      queryKeys.timeline('ns', 'web', 200),
      queryKeys.revisions('ns', 'web'),
      queryKeys.podWhy('ns', 'web', 'web-x'),
      queryKeys.configCheck('ns', 'web', 'events {}'),
    ])
      expect(key.slice(0, prefix.length)).toEqual([...prefix]);
  });
});
