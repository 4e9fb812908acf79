'use client';

import { useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  ApiClient,
  browserSession,
  StatusError,
  type BrowserSession,
  type Credential,
} from '@/lib/api/api-client';
import { LiveClient } from '@/lib/live/live-client';
import { queryKeys } from '@/lib/query/query-keys';
import { clearToken, useToken, type Identity } from '@/lib/session/session';

const REFUSED = 'Your token is no longer accepted. Sign in again.';
const ENDED = 'Your sign-in has ended. Sign in again.';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'error'; error: StatusError; retry: () => void }
  | {
      status: 'ready';
      /** The pasted token; null for a sign-in with the identity provider (its session cookie). */
      token: string | null;
      identity: Identity;
      api: ApiClient;
      live: LiveClient | undefined;
    };

interface SessionContext {
  session: SessionState;
  /** Ends the session (here, and at the provider when it signs out there too) and goes to the sign-in page. */
  signOut: () => void;
}

const Context = createContext<SessionContext>({ session: { status: 'loading' }, signOut: () => {} });

export const useSession = () => useContext(Context);

/** The session of a page behind RequireSession: always ready there. */
export function useReadySession() {
  const { session } = useSession();
  if (session.status !== 'ready') throw new Error('useReadySession outside a signed-in page');
  return session;
}

const errorOf = (error: unknown) =>
  error instanceof StatusError ? error : new StatusError(0, 'Error', (error as Error).message);

/**
 * Holds the session: a pasted token from sessionStorage, or else the browser session of a sign-in with the
 * identity provider (asked of the server on every page load); the identity the server gives it (whoami), a REST
 * client and the live connection. A 401 anywhere ends the session. Both reads go through the query layer.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const token = useToken();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveClient | undefined>();

  /** The provider sign-in's session, asked only without a pasted token: undefined while asked, null when none. */
  const browserRead = useQuery({
    queryKey: queryKeys.browserSession(),
    queryFn: ({ signal }) => browserSession(signal),
    enabled: token === null,
  });
  const browser = token === null ? browserRead.data : undefined;
  const setBrowser = useCallback(
    (value: BrowserSession | null) => queryClient.setQueryData(queryKeys.browserSession(), value),
    [queryClient],
  );

  const credential = useMemo<Credential | undefined>(
    () => (token ? { token } : browser ? { csrfToken: browser.csrfToken } : undefined),
    [token, browser],
  );
  const key = token ?? (browser ? `browser:${browser.csrfToken}` : undefined);

  const endBrowserSession = useCallback(() => {
    setBrowser(null);
    clearToken(ENDED);
  }, [setBrowser]);
  const api = useMemo(
    () =>
      credential
        ? new ApiClient(credential, 'token' in credential ? () => clearToken(REFUSED) : endBrowserSession)
        : undefined,
    [credential, endBrowserSession],
  );

  const whoami = useQuery({
    queryKey: queryKeys.whoami(key ?? ''),
    queryFn: ({ signal }) => api!.whoami(signal),
    enabled: api !== undefined && key !== undefined,
  });
  // A 401 has already ended the session (the client's onUnauthorized): not an error to show.
  const whoamiError =
    whoami.error && !(whoami.error instanceof StatusError && whoami.error.code === 401)
      ? errorOf(whoami.error)
      : undefined;
  const identity = whoami.data;

  const ready = identity !== undefined;
  useEffect(() => {
    if (!ready || !key) return;
    const client = new LiveClient(token ?? null, token ? () => clearToken(REFUSED) : endBrowserSession);
    setLive(client);
    return () => {
      client.close();
      setLive(undefined);
    };
  }, [ready, key, token, endBrowserSession]);

  const { refetch: askBrowser } = browserRead;
  const { refetch: askWhoami } = whoami;
  const canAsk = api !== undefined && key !== undefined;
  const retry = useCallback(() => {
    if (token === null) void askBrowser();
    // refetch() runs even a disabled query: whoami only once there is a credential to ask with.
    if (canAsk) void askWhoami();
  }, [token, canAsk, askBrowser, askWhoami]);
  /** Ends the provider sign-in's session on the server; signed out here whatever it answers. */
  const { mutate: endServerSession } = useMutation({
    mutationFn: (client: ApiClient) => client.signOut(),
    onSettled: (providerSignOutUrl) => {
      setBrowser(null);
      if (providerSignOutUrl) window.location.assign(providerSignOutUrl);
      else router.push('/sign-in');
    },
  });
  const signOut = useCallback(() => {
    if (token || !api) {
      clearToken();
      router.push('/sign-in');
      return;
    }
    endServerSession(api);
  }, [token, api, router, endServerSession]);

  const session = useMemo<SessionState>(() => {
    if (token === undefined) return { status: 'loading' };
    if (token === null && browser === undefined) {
      if (browserRead.error) return { status: 'error', error: errorOf(browserRead.error), retry };
      return { status: 'loading' };
    }
    if (!key) return { status: 'signed-out' };
    if (whoamiError) return { status: 'error', error: whoamiError, retry };
    if (!identity) return { status: 'loading' };
    return { status: 'ready', token: token ?? null, identity, api: api!, live };
  }, [token, browser, browserRead.error, key, whoamiError, identity, api, live, retry]);

  const value = useMemo(() => ({ session, signOut }), [session, signOut]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
