'use client';

import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiClient, errorMessage, StatusError } from '@/lib/api/api-client';
import { safeNextPath } from '@ngx/nginx-api';
import { saveToken, takeSignOutNotice } from '@/lib/session/session';
import { useSignInOptions } from '@/lib/session/use-sign-in-options';
import { useSession } from './session-provider';

/** Where to go once signed in, checked against the page's own origin (so only in the browser, when leaving). */
const destination = (next: string | null) => safeNextPath(next, window.location.origin);

/**
 * "Sign in with your identity provider" when one is configured (the server runs the authorization code flow and
 * keeps the session in an HttpOnly cookie), and the token form: a pasted token is checked with
 * /controlplane/v1/whoami and kept in sessionStorage for this tab only.
 */
export function SignInForm() {
  const router = useRouter();
  const next = useSearchParams().get('next');
  const { session } = useSession();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [notice, setNotice] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const options = useSignInOptions();
  useEffect(() => setNotice(takeSignOutNotice()), []);
  const oidc = options?.oidc;
  const providerHref = oidc
    ? `${oidc.signInPath}?next=${encodeURIComponent(next && next.startsWith('/') ? next : '/')}`
    : undefined;
  useEffect(() => {
    if (session.status === 'ready') router.replace(destination(next));
  }, [session.status, next, router]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = token.trim();
    if (!value) {
      setError('Paste an API token.');
      return;
    }
    setChecking(true);
    setError(undefined);
    try {
      await new ApiClient({ token: value }).whoami();
      saveToken(value);
      router.replace(destination(next));
    } catch (e) {
      setError(
        e instanceof StatusError && e.code === 401
          ? 'This token was not accepted. Check that you pasted all of it.'
          : errorMessage(e),
      );
      setChecking(false);
    }
  }

  return (
    <div className="sign-in">
      <div className="panel">
        <div className="panel-body">
          <h1>Sign in</h1>
          <p className="subtitle">
            {oidc
              ? 'Sign in with your company account, or paste an API token.'
              : 'Paste an API token of the Nginx control plane.'}
          </p>
          {notice && (
            <p className="alert info" role="status">
              {notice}
            </p>
          )}
          {oidc && (
            <div className="form-actions" style={{ marginTop: '1.25rem' }}>
              {oidc.available ? (
                <a className="button primary" href={providerHref}>
                  Sign in with your identity provider
                </a>
              ) : (
                <p className="alert error" role="alert">
                  The identity provider ({oidc.issuer}) cannot be reached, so signing in with it is not
                  possible now. Try again later, or sign in with a token.
                </p>
              )}
            </div>
          )}
          <form onSubmit={submit} noValidate style={{ marginTop: '1.25rem' }}>
            <div className="field">
              <label htmlFor="token">API token</label>
              <input
                id="token"
                name="token"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={token}
                onChange={(e) => setToken(e.target.value)}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? 'token-help token-error' : 'token-help'}
                autoFocus
              />
              <p className="help" id="token-help">
                Tokens come from <code>AUTH_TOKENS</code> or <code>AUTH_TOKENS_FILE</code>; a fresh install
                writes an admin token to <code>.data/admin-token</code>. It is kept for this browser tab only.
              </p>
              {error && (
                <p className="field-error" id="token-error" role="alert">
                  {error}
                </p>
              )}
            </div>
            <div className="form-actions">
              <button type="submit" className="primary" disabled={checking}>
                {checking ? 'Checking…' : 'Sign in'}
              </button>
            </div>
          </form>
        </div>
      </div>
    </div>
  );
}
