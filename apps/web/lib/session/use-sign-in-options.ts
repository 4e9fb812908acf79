'use client';

import { useQuery } from '@tanstack/react-query';
import { signInOptions, type SignInOptions } from '@/lib/api/api-client';
import { queryKeys } from '@/lib/query/query-keys';

/** What the sign-in page offers when the server cannot say: the token form only. */
export const TOKENS_ONLY: SignInOptions = { tokens: true, oidc: null };

/** The ways to sign in the server offers (`/auth/providers`); undefined until it answers, `TOKENS_ONLY` if it fails. */
export function useSignInOptions(): SignInOptions | undefined {
  return useQuery({
    queryKey: queryKeys.signInOptions(),
    queryFn: ({ signal }) => signInOptions(signal).catch((): SignInOptions => TOKENS_ONLY),
  }).data;
}
