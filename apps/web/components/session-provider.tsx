'use client';

import { useRouter } from 'next/navigation';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiClient, StatusError } from '../lib/api-client';
import { LiveClient } from '../lib/live-client';
import { clearToken, useToken, type Identity } from '../lib/session';

const REFUSED = 'Your token is no longer accepted. Sign in again.';

export type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'error'; error: StatusError; retry: () => void }
  | { status: 'ready'; token: string; identity: Identity; api: ApiClient; live: LiveClient | undefined };

interface SessionContext {
  session: SessionState;
  /** Forgets the token, closes the live connection and goes to the sign-in page. */
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

type Check =
  | { token: string; identity: Identity; error?: undefined }
  | { token: string; identity?: undefined; error: StatusError };

/**
 * Holds the session: the token from sessionStorage, the identity the server gives it (whoami, checked on every
 * page load), a REST client and the live connection. A 401 anywhere ends the session.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const token = useToken();
  const router = useRouter();
  const [check, setCheck] = useState<Check | undefined>();
  const [attempt, setAttempt] = useState(0);
  const [live, setLive] = useState<LiveClient | undefined>();

  const api = useMemo(() => (token ? new ApiClient(token, () => clearToken(REFUSED)) : undefined), [token]);

  useEffect(() => {
    if (!api || !token) return;
    const abort = new AbortController();
    api
      .whoami(abort.signal)
      .then((identity) => setCheck({ token, identity }))
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        if (error instanceof StatusError && error.code === 401) return; // the client already signed out
        setCheck({
          token,
          error: error instanceof StatusError ? error : new StatusError(0, 'Error', (error as Error).message),
        });
      });
    return () => abort.abort();
  }, [api, token, attempt]);

  const ready = check?.token === token && check?.identity !== undefined;
  useEffect(() => {
    if (!ready || !token) return;
    const client = new LiveClient(token, () => clearToken(REFUSED));
    setLive(client);
    return () => {
      client.close();
      setLive(undefined);
    };
  }, [ready, token]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const signOut = useCallback(() => {
    clearToken();
    router.push('/sign-in');
  }, [router]);

  const session = useMemo<SessionState>(() => {
    if (token === undefined) return { status: 'loading' };
    if (token === null) return { status: 'signed-out' };
    if (!check || check.token !== token) return { status: 'loading' };
    if (check.error) return { status: 'error', error: check.error, retry };
    return { status: 'ready', token, identity: check.identity, api: api!, live };
  }, [token, check, api, live, retry]);

  const value = useMemo(() => ({ session, signOut }), [session, signOut]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
