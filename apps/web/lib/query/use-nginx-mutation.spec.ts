import { MutationObserver, type UseMutationOptions } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { makeQueryClient } from './query-client';
import { queryKeys } from './query-keys';
import { refreshingNginx, type NginxRef } from './use-nginx-mutation';

type Client = ReturnType<typeof makeQueryClient>;

/** A client holding one answered read for each key. */
function clientWith(...keys: (readonly unknown[])[]): Client {
  const client = makeQueryClient();
  for (const key of keys) client.setQueryData(key, 'read');
  return client;
}

/** A write of `options` to `target` as `useNginxMutation` runs it, outside React. */
const writer = <TData, TVariables>(
  client: Client,
  target: NginxRef | ((variables: TVariables) => NginxRef),
  options: UseMutationOptions<TData, Error, TVariables>,
) => new MutationObserver(client, refreshingNginx(client, target, options));

const invalidated = (client: Client, key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated;
const web = { namespace: 'ns', name: 'web' };

describe('refreshingNginx', () => {
  it('refreshes every read about the Nginx written, and no other, once the write succeeds', async () => {
    const client = clientWith(
      queryKeys.revisions('ns', 'web'),
      queryKeys.events('ns', 'web'),
      queryKeys.events('ns', 'other'),
    );
    const seen: string[] = [];
    await writer(client, web, {
      mutationFn: async (replicas: number) => replicas,
      onSuccess: (data) => void seen.push(`success ${data}`),
    }).mutate(3);
    expect(seen).toEqual(['success 3']);
    expect(invalidated(client, queryKeys.revisions('ns', 'web'))).toBe(true);
    expect(invalidated(client, queryKeys.events('ns', 'web'))).toBe(true);
    expect(invalidated(client, queryKeys.events('ns', 'other'))).toBe(false);
  });

  it('refreshes nothing when the write fails, and still calls its own onError', async () => {
    const client = clientWith(queryKeys.events('ns', 'web'));
    const seen: string[] = [];
    const write = writer(client, web, {
      mutationFn: async () => {
        throw new Error('refused');
      },
      onError: (error) => void seen.push(error.message),
    });
    await expect(write.mutate(undefined)).rejects.toThrow('refused');
    expect(seen).toEqual(['refused']);
    expect(invalidated(client, queryKeys.events('ns', 'web'))).toBe(false);
  });

  it('finds the Nginx from the variables when the write names it only when sent', async () => {
    const client = clientWith(queryKeys.events('team-a', 'new'));
    await writer(client, (ref: NginxRef) => ref, { mutationFn: async () => 'created' }).mutate({
      namespace: 'team-a',
      name: 'new',
    });
    expect(invalidated(client, queryKeys.events('team-a', 'new'))).toBe(true);
  });
});
