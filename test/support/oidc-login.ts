// A scripted user agent for the provider's sign-in: follows redirects by hand with a cookie jar per origin,
// fills the provider's login form (any password) and confirms its consent form, as a person in a browser would.
// It stands in for a browser where a test needs the raw answers (bad callbacks), and for kubectl's oidc-login
// (the authorization code flow with PKCE, then the token endpoint) where a test needs an ID token.
import { readFileSync } from 'node:fs';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciInit } from 'undici';
import { CA_FILE } from './control-plane.js';
import { CLIENT_ID, CLIENT_SECRET, ISSUER, SCRIPTED_REDIRECT } from './oidc-provider.js';

const dispatcher = new Agent({ connect: { ca: readFileSync(CA_FILE) } });

/** Cookies by origin (host and port: the app and the provider share 127.0.0.1), name → value. */
export class CookieJar {
  readonly jars = new Map<string, Map<string, string>>();

  header(url: string): string | undefined {
    const jar = this.jars.get(new URL(url).origin);
    return jar && jar.size > 0 ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  take(url: string, setCookies: string[]): void {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    for (const line of setCookies) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1).trim()];
      if (/max-age=0\b/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(origin, jar);
  }

  get(url: string, name: string): string | undefined {
    return this.jars.get(new URL(url).origin)?.get(name);
  }
}

export interface Hop {
  url: string;
  status: number;
  location?: string;
  /** The Set-Cookie lines as sent (the jar keeps only names and values). */
  setCookies: string[];
  body: string;
}

/** One request with the jar's cookies, no redirect followed. */
export async function hop(jar: CookieJar, url: string, init: UndiciInit = {}): Promise<Hop> {
  const cookie = jar.header(url);
  const response = await undiciFetch(url, {
    ...init,
    redirect: 'manual',
    dispatcher,
    headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
  });
  const setCookies = response.headers.getSetCookie();
  jar.take(url, setCookies);
  const location = response.headers.get('location');
  return {
    url,
    status: response.status,
    setCookies,
    ...(location ? { location: new URL(location, url).href } : {}),
    body: await response.text(),
  };
}

const formAction = (html: string) => /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
const promptOf = (html: string) => /name="prompt" value="([^"]+)"/.exec(html)?.[1];

/**
 * Goes from `url` through redirects and the provider's forms (signing in as `login`) until a redirect to a URL
 * `stop` accepts, which is answered; throws if the walk ends anywhere else.
 */
export async function walkSignIn(
  jar: CookieJar,
  url: string,
  login: string,
  stop: (location: string) => boolean,
): Promise<string> {
  let next: { url: string; init?: UndiciInit } = { url };
  for (let step = 0; step < 20; step++) {
    const answer = await hop(jar, next.url, next.init);
    if (answer.location) {
      if (stop(answer.location)) return answer.location;
      next = { url: answer.location };
      continue;
    }
    const action = formAction(answer.body);
    const prompt = promptOf(answer.body);
    if (answer.status !== 200 || !action || !prompt)
      throw new Error(`sign-in stopped at ${answer.url}: ${answer.status} ${answer.body.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any' } : {}) });
    next = {
      url: new URL(action, answer.url).href,
      init: {
        method: 'POST',
        body: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      },
    };
  }
  throw new Error(`sign-in did not finish in 20 steps from ${url}`);
}

/** Tokens for `login` as kubectl's oidc-login gets them: authorization code with PKCE at the provider. */
export async function idTokenFor(login: string): Promise<{ idToken: string; refreshToken?: string }> {
  const customFetch = ((url: string, init: UndiciInit) =>
    undiciFetch(url, { ...init, dispatcher })) as unknown as client.CustomFetch;
  const config = await client.discovery(
    new URL(ISSUER),
    CLIENT_ID,
    undefined,
    client.ClientSecretBasic(CLIENT_SECRET),
    { [client.customFetch]: customFetch },
  );
  config[client.customFetch] = customFetch;
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: SCRIPTED_REDIRECT,
    scope: 'openid email groups offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const callback = await walkSignIn(new CookieJar(), url.href, login, (location) =>
    location.startsWith(SCRIPTED_REDIRECT),
  );
  const tokens = await client.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  if (!tokens.id_token) throw new Error('the provider answered no ID token');
  return {
    idToken: tokens.id_token,
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
  };
}

/**
 * A person's sign-in in the browser: from `origin`'s sign-in page through the provider's own login and consent
 * forms (as `login`, any password) and back to `origin`'s front page.
 */
export async function signInThroughProvider(page: Page, origin: string, login: string): Promise<void> {
  await page.goto(`${origin}/sign-in`);
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  // The provider's own pages.
  await page.waitForURL((url) => url.origin === ISSUER);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL((url) => url.origin === origin && url.pathname === '/');
}
