'use client';

import { useRouter } from 'next/navigation';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  ApiClient,
  browserSession,
  StatusError,
  type BrowserSession,
  type Credential,
} from '@/lib/api/api-client';
import { LiveClient } from '@/lib/live/live-client';
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

type Check =
  | { key: string; identity: Identity; error?: undefined }
  | { key: string; identity?: undefined; error: StatusError };

const errorOf = (error: unknown) =>
  error instanceof StatusError ? error : new StatusError(0, 'Error', (error as Error).message);

/**
 * Holds the session: a pasted token from sessionStorage, or else the browser session of a sign-in with the
 * identity provider (asked of the server on every page load); the identity the server gives it (whoami), a REST
 * client and the live connection. A 401 anywhere ends the session.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const token = useToken();
  const router = useRouter();
  /** The provider sign-in's session: undefined while asked, null when there is none. */
  const [browser, setBrowser] = useState<BrowserSession | null | undefined>(undefined);
  const [check, setCheck] = useState<Check | undefined>();
  const [attempt, setAttempt] = useState(0);
  const [live, setLive] = useState<LiveClient | undefined>();

  useEffect(() => {
    if (token !== null) return;
    const abort = new AbortController();
    setBrowser(undefined);
    browserSession(abort.signal)
      .then(setBrowser)
      .catch((error: unknown) => {
        if (!abort.signal.aborted) setCheck({ key: 'browser', error: errorOf(error) });
      });
    return () => abort.abort();
  }, [token, attempt]);

  const credential = useMemo<Credential | undefined>(
    () => (token ? { token } : browser ? { csrfToken: browser.csrfToken } : undefined),
    [token, browser],
  );
  const key = token ?? (browser ? `browser:${browser.csrfToken}` : undefined);

  const endBrowserSession = useCallback(() => {
    setBrowser(null);
    clearToken(ENDED);
  }, []);
  const api = useMemo(
    () =>
      credential
        ? new ApiClient(credential, 'token' in credential ? () => clearToken(REFUSED) : endBrowserSession)
        : undefined,
    [credential, endBrowserSession],
  );

  useEffect(() => {
    if (!api || !key) return;
    const abort = new AbortController();
    api
      .whoami(abort.signal)
      .then((identity) => setCheck({ key, identity }))
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        if (error instanceof StatusError && error.code === 401) return; // the client already signed out
        setCheck({ key, error: errorOf(error) });
      });
    return () => abort.abort();
  }, [api, key, attempt]);

  const ready = check?.key === key && check?.identity !== undefined;
  useEffect(() => {
    if (!ready || !key) return;
    const client = new LiveClient(token ?? null, token ? () => clearToken(REFUSED) : endBrowserSession);
    setLive(client);
    return () => {
      client.close();
      setLive(undefined);
    };
  }, [ready, key, token, endBrowserSession]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const signOut = useCallback(() => {
    if (token || !api) {
      clearToken();
      router.push('/sign-in');
      return;
    }
    api
      .signOut()
      .catch(() => null)
      .then((providerSignOutUrl) => {
        setBrowser(null);
        if (providerSignOutUrl) window.location.assign(providerSignOutUrl);
        else router.push('/sign-in');
      });
  }, [token, api, router]);

  const session = useMemo<SessionState>(() => {
    if (token === undefined) return { status: 'loading' };
    if (token === null && browser === undefined) {
      if (check?.key === 'browser' && check.error) return { status: 'error', error: check.error, retry };
      return { status: 'loading' };
    }
    if (!key) return { status: 'signed-out' };
    if (!check || check.key !== key) return { status: 'loading' };
    if (check.error) return { status: 'error', error: check.error, retry };
    return { status: 'ready', token: token ?? null, identity: check.identity, api: api!, live };
  }, [token, browser, key, check, api, live, retry]);

  const value = useMemo(() => ({ session, signOut }), [session, signOut]);
  return <Context.Provider value={value}>{children}</Context.Provider>;
}
