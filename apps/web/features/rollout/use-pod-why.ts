'use client';

import type { PodWhy } from '@ngx/nginx-api';
import { useQuery } from '@tanstack/react-query';
import type { ApiClient } from '@/lib/api/api-client';
import { queryKeys } from '@/lib/query/query-keys';
import { errorText } from '@/lib/query/query-state';

/** "Why?" of one pod: the causal chain, asked anew each time a pod is asked about; nothing while `pod` is undefined. */
export function usePodWhy(
  api: ApiClient,
  namespace: string,
  name: string,
  pod: string | undefined,
): { why: PodWhy | undefined; error: string | undefined } {
  const query = useQuery({
    queryKey: queryKeys.podWhy(namespace, name, pod),
    queryFn: ({ signal }) => api.podWhy(namespace, name, pod ?? '', signal),
    enabled: pod !== undefined && pod !== '',
  });
  return { why: query.data, error: errorText(query.error) };
}
