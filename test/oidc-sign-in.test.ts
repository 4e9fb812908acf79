// Signing in with a real OpenID provider (node-oidc-provider over TLS, test/support/oidc-provider.ts) at the
// issuer kube-apiserver also trusts: kubectl with an ID token against both APIs, the UI's sign-in (authorization
// code with PKCE) and its browser session as the API sees it, and every bad sign-in answered with a Status and
// nothing kept (issue 32).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, type TestBrowser } from './support/browser.js';
import { CA_FILE, nginxManifest, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { CLUSTER_DIR } from './support/paths.js';
import { kubectl, kubectlApply, runKubectl } from './support/kubectl.js';
import { CookieJar, hop, idTokenFor, signInThroughProvider, walkSignIn } from './support/oidc-login.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  ISSUER,
  startProvider,
  type TestProvider,
} from './support/oidc-provider.js';
import { staysTrue, uniqueName, waitFor } from './support/wait.js';
import { holdExclusiveForFile } from './support/exclusive.js';

// Its OpenID provider takes the one port kube-apiserver trusts ID tokens from (5556), which test/oidc-sign-in.test.ts
// and test/api-replicas.test.ts take in turn.
holdExclusiveForFile('oidc-issuer-port');

const NS = uniqueName('oidc');
const OTHER_NS = uniqueName('oidc-other');
const AUTH = '/controlplane/v1/auth';
const SESSION_COOKIE = '__Host-ngx-session';

let app: ControlPlane;
let rbacApp: ControlPlane;
let provider: TestProvider;
let scratch: string;

const groups = { alice: ['team-a'], bob: ['team-b'] };

async function startIdp(idTokenSeconds?: number) {
  provider = await startProvider({
    redirectUris: [`${app.httpsUrl}${AUTH}/callback`, `${rbacApp.httpsUrl}${AUTH}/callback`],
    postLogoutRedirectUris: [`${app.httpsUrl}/sign-in`],
    groups,
    ...(idTokenSeconds ? { idTokenSeconds } : {}),
  });
}

/** Signs in through the app as `login`; answers the jar holding the session cookie and the callback's answer. */
async function signIn(login: string, next = '/nginxes', target: ControlPlane = app) {
  const jar = new CookieJar();
  const callback = await walkSignIn(
    jar,
    `${target.httpsUrl}${AUTH}/sign-in?next=${encodeURIComponent(next)}`,
    login,
    (l) => l.startsWith(`${target.httpsUrl}${AUTH}/callback`),
  );
  const answer = await hop(jar, callback);
  return { jar, callback, answer };
}

const sessionOf = async (jar: CookieJar) => {
  const answer = await hop(jar, `${app.httpsUrl}${AUTH}/session`);
  return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
};

const nginx = (name: string) => JSON.stringify(nginxManifest(name, 0));

beforeAll(async () => {
  for (const ns of [NS, OTHER_NS]) await kubectl('create', 'namespace', ns);
  scratch = mkdtempSync(join(tmpdir(), 'ngx-oidc-'));
  const secret = join(scratch, 'client-secret');
  writeFileSync(secret, CLIENT_SECRET);
  const policy = join(scratch, 'policy.yaml');
  writeFileSync(policy, `- group: "oidc:team-a"\n  role: editor\n  namespaces: [${NS}]\n`);
  const oidc = {
    OIDC_ISSUER_URL: ISSUER,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET_FILE: secret,
    OIDC_CA_FILE: CA_FILE,
    OIDC_USERNAME_PREFIX: 'oidc:',
    OIDC_GROUPS_CLAIM: 'groups',
    OIDC_GROUPS_PREFIX: 'oidc:',
  };
  app = await startControlPlane({ ...oidc, AUTH_POLICY_FILE: policy }, { web: true });
  // The same sign-in, with the cluster's RBAC deciding; answers kept long, so only kube-apiserver's own RBAC, as
  // the impersonated person, can refuse a write once her RoleBinding is gone.
  rbacApp = await startControlPlane({
    ...oidc,
    AUTHORIZATION: 'kubernetes',
    AUTHORIZATION_CACHE_SECONDS: '300',
  });
  await startIdp();
}, 120_000);

afterAll(async () => {
  await provider?.stop();
  await app?.stop();
  await rbacApp?.stop();
  for (const ns of [NS, OTHER_NS]) await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
});

describe('one identity, both APIs', () => {
  it('kubectl with an ID token: auth whoami gives the same user and groups from kube-apiserver and from us', async () => {
    const { idToken } = await idTokenFor('alice');
    const noConfig = { env: { ...process.env, KUBECONFIG: join(scratch, 'no-kubeconfig') } };
    const whoami = async (server: string) =>
      JSON.parse(
        await runKubectl(
          [
            `--server=${server}`,
            `--certificate-authority=${CA_FILE}`,
            `--token=${idToken}`,
            'auth',
            'whoami',
            '-o',
            'json',
          ],
          noConfig,
        ),
      ) as { status: { userInfo: { username: string; groups: string[] } } };
    // kube-apiserver reads the issuer's discovery document in the background, retrying until it answers.
    const theirs = await waitFor(
      'kube-apiserver to take the ID token',
      () => whoami('https://127.0.0.1:6443').catch(() => undefined),
      { timeoutMs: 60_000, intervalMs: 1000 },
    );
    const ours = await whoami(app.httpsUrl);
    expect(theirs.status.userInfo).toEqual({
      username: 'oidc:alice',
      groups: ['oidc:team-a', 'system:authenticated'],
    });
    expect(ours.status.userInfo).toEqual(theirs.status.userInfo);
  });
});

describe('the UI sign-in, as the API sees it', () => {
  it('signs in with the provider: an HttpOnly, Secure, SameSite=Lax session cookie, then back to the page asked for', async () => {
    const jar = new CookieJar();
    const start = await hop(jar, `${app.httpsUrl}${AUTH}/sign-in?next=%2Fnginxes%3Fnamespace%3D${NS}`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.location!);
    expect(authorize.origin).toBe(ISSUER);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    const callback = await walkSignIn(jar, start.location!, 'alice', (l) =>
      l.startsWith(`${app.httpsUrl}${AUTH}/callback`),
    );
    const cookieCheck = await hop(jar, callback);
    expect(cookieCheck.status).toBe(303);
    expect(cookieCheck.location).toBe(`${app.httpsUrl}/nginxes?namespace=${NS}`);
    const session = cookieCheck.setCookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/; SameSite=Lax/);
    const described = await sessionOf(jar);
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({
      username: 'oidc:alice',
      groups: ['oidc:team-a'],
      email: 'alice@example.test',
      authenticatedBy: 'oidc',
    });
  });

  it('reads and writes with the cookie; a write needs the CSRF token and this site as its Origin', async () => {
    const { jar } = await signIn('alice');
    const { body } = await sessionOf(jar);
    const csrf = body.csrfToken as string;
    const path = `${app.httpsUrl}/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
    expect((await hop(jar, path)).status).toBe(200);
    const write = (name: string, headers: Record<string, string>) =>
      hop(jar, path, {
        method: 'POST',
        body: nginx(name),
        headers: { 'content-type': 'application/json', ...headers },
      });
    const noCsrf = await write('no-csrf', { origin: app.httpsUrl });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toMatch(/CSRF token/);
    // A cross-site form POST: the browser names the other site; the token cannot be known there.
    const crossSite = await hop(jar, path, {
      method: 'POST',
      body: 'apiVersion=mycompany.com/v1',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toMatch(/cross-site/);
    const crossWithToken = await write('cross', { origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(crossWithToken.status).toBe(403);
    const made = await write('by-alice', { origin: app.httpsUrl, 'x-csrf-token': csrf });
    expect(made.status).toBe(201);
    const listed = JSON.parse((await hop(jar, path)).body) as { items: { metadata: { name: string } }[] };
    expect(listed.items.map((i) => i.metadata.name)).toEqual(['by-alice']);
    const change = await waitFor('the create in the audit', async () => {
      const audit = await app.as('admin')(`/controlplane/v1/audit/changes?namespace=${NS}&name=by-alice`);
      return ((await audit.json()) as { items?: Record<string, unknown>[] }).items?.[0];
    });
    // The audit names the person: email, groups and how they signed in.
    expect(change).toMatchObject({
      actor: 'oidc:alice',
      actorEmail: 'alice@example.test',
      actorGroups: ['oidc:team-a'],
      authenticatedBy: 'oidc',
    });
  });

  it('refuses a replayed, missing or foreign state, a foreign next or redirect, a tampered cookie', async () => {
    const { jar, callback, answer } = await signIn('alice');
    expect(answer.status).toBe(303);
    // Replayed: the state was taken once.
    const replay = await hop(jar, callback);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatch(/unknown, expired or already used/);
    // A person's browser gets the same refusal as a page, with the way back.
    const asPage = await hop(jar, callback, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(asPage.status).toBe(401);
    expect(asPage.body).toMatch(/Sign-in refused \(401\)[\s\S]*Back to sign in/);
    // Another browser (no sign-in cookie) with a fresh callback's code and state.
    const other = new CookieJar();
    const fresh = await walkSignIn(other, `${app.httpsUrl}${AUTH}/sign-in`, 'alice', (l) =>
      l.startsWith(`${app.httpsUrl}${AUTH}/callback`),
    );
    const stranger = await hop(new CookieJar(), fresh);
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatch(/another browser/);
    const noState = await hop(jar, `${app.httpsUrl}${AUTH}/callback?code=abc`);
    expect(noState.status).toBe(400);
    const extra = await hop(other, `${fresh}&redirect=${encodeURIComponent('https://evil.example/')}`);
    expect(extra.status).toBe(400);
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example'])
      expect(
        (await hop(new CookieJar(), `${app.httpsUrl}${AUTH}/sign-in?next=${encodeURIComponent(next)}`))
          .status,
      ).toBe(400);
    // The audit counts each refused sign-in (never the code or state), by reason. Its tallies are written in
    // batches: wait until all of this test's refusals are in, not merely one of each code.
    const counted = await waitFor('the refused sign-ins in the audit', async () => {
      const answer = await app.as('admin')('/controlplane/v1/audit/refusals?door=sign-in');
      const items = (
        (await answer.json()) as { items: { code: number; reason: string; count: number; message: string }[] }
      ).items;
      const codes = new Set(items.map((item) => item.code));
      const total = items.reduce((sum, item) => sum + item.count, 0);
      return codes.has(400) && codes.has(401) && total >= 6 ? items : undefined;
    });
    expect(counted.reduce((total, item) => total + item.count, 0)).toBeGreaterThanOrEqual(6);
    const callbackState = new URL(fresh).searchParams.get('state')!;
    expect(JSON.stringify(counted)).not.toContain(callbackState);
    const tampered = new CookieJar();
    tampered.take(app.httpsUrl, [`${SESSION_COOKIE}=${'A'.repeat(43)}`]);
    expect((await sessionOf(tampered)).status).toBe(401);
    expect(
      (await hop(tampered, `${app.httpsUrl}/apis/mycompany.com/v1/namespaces/${NS}/nginxes`)).status,
    ).toBe(401);
  });

  it('opens a live connection with the cookie from this site only (a cross-site WebSocket is refused)', async () => {
    const { jar } = await signIn('alice');
    const cookie = jar.header(app.httpsUrl)!;
    const handshake = (origin: string) =>
      new Promise<string>((resolve) => {
        const socket = io(app.url, {
          path: '/socket.io',
          transports: ['websocket'],
          reconnection: false,
          extraHeaders: { cookie, origin },
        });
        socket.once('connect', () => {
          socket.close();
          resolve('connected');
        });
        socket.once('connect_error', (error) => {
          socket.close();
          resolve(error.message);
        });
      });
    expect(await handshake(app.url)).toBe('connected');
    expect(await handshake('https://evil.example')).toBe('unauthorized');
  });

  it('signs nobody in whom the policy grants nothing', async () => {
    const { answer, jar } = await signIn('bob');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/grants it nothing/);
    expect(jar.get(app.httpsUrl, SESSION_COOKIE)).toBeUndefined();
  });

  it('signs out: the cookie is dead here, and the provider is told (RP-initiated logout)', async () => {
    const { jar } = await signIn('alice');
    const { body } = await sessionOf(jar);
    const cookie = jar.get(app.httpsUrl, SESSION_COOKIE)!;
    const noCsrf = await hop(jar, `${app.httpsUrl}${AUTH}/sign-out`, {
      method: 'POST',
      headers: { origin: app.httpsUrl },
    });
    expect(noCsrf.status).toBe(403);
    const out = await hop(jar, `${app.httpsUrl}${AUTH}/sign-out`, {
      method: 'POST',
      headers: { origin: app.httpsUrl, 'x-csrf-token': body.csrfToken as string },
    });
    expect(out.status).toBe(200);
    const url = new URL((JSON.parse(out.body) as { providerSignOutUrl: string }).providerSignOutUrl);
    expect(url.origin).toBe(ISSUER);
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(`${app.httpsUrl}/sign-in`);
    const old = new CookieJar();
    old.take(app.httpsUrl, [`${SESSION_COOKIE}=${cookie}`]);
    expect((await sessionOf(old)).status).toBe(401);
  });
});

describe("signed in with the provider, the cluster's RBAC deciding (AUTHORIZATION=kubernetes)", () => {
  it('lets alice patch where her RoleBinding says, as herself: kube-apiserver refuses her once it is gone', async () => {
    await kubectl(
      '-n',
      NS,
      'create',
      'role',
      'nginx-patcher',
      '--verb=get,list,watch,patch',
      '--resource=nginxes.mycompany.com',
    );
    await kubectl(
      '-n',
      NS,
      'create',
      'rolebinding',
      'alice-patches',
      '--role=nginx-patcher',
      '--user=oidc:alice',
    );
    for (const ns of [NS, OTHER_NS])
      expect(
        (
          await rbacApp.as('admin')(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: nginx('rbac-web'),
          })
        ).status,
      ).toBe(403); // a static token is nobody to the cluster's RBAC
    for (const ns of [NS, OTHER_NS]) await kubectlApply(nginx('rbac-web'), ns);
    const { jar, answer } = await signIn('alice', '/nginxes', rbacApp);
    expect(answer.status).toBe(303);
    const csrf = (await sessionOfApp(jar, rbacApp)).csrfToken as string;
    const patch = (ns: string, replicas: number) =>
      hop(jar, `${rbacApp.httpsUrl}/apis/mycompany.com/v1/namespaces/${ns}/nginxes/rbac-web`, {
        method: 'PATCH',
        body: JSON.stringify({ spec: { replicas } }),
        headers: {
          'content-type': 'application/merge-patch+json',
          origin: rbacApp.httpsUrl,
          'x-csrf-token': csrf,
        },
      });
    expect((await patch(NS, 2)).status).toBe(200);
    const elsewhere = await patch(OTHER_NS, 2);
    expect(elsewhere.status).toBe(403);
    expect((JSON.parse(elsewhere.body) as { message: string }).message).toMatch(
      /User "oidc:alice" cannot patch resource "nginxes"/,
    );
    // Her RoleBinding goes; our kept answer still says yes (300 s here), kube-apiserver, asked as her, says no.
    await kubectl('-n', NS, 'delete', 'rolebinding', 'alice-patches');
    const after = await waitFor('kube-apiserver to refuse alice', async () => {
      const answer = await patch(NS, 3);
      return answer.status === 403 ? answer : undefined;
    });
    expect(after.body).toMatch(/oidc:alice/);
    expect(
      await kubectl('get', 'nginx.mycompany.com', 'rbac-web', '-n', NS, '-o', 'jsonpath={.spec.replicas}'),
    ).toBe('2');
  });
});

describe('sessions and the provider over time', () => {
  it('renews with the refresh token; a token revoked at the provider ends the session; a provider that is down does not', async () => {
    await provider.stop();
    await startIdp(2); // ID tokens of two seconds: sessions are renewed often
    const { jar } = await signIn('alice');
    const path = `${app.httpsUrl}/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
    // Used until its ID token has expired: the provider makes a refresh_token grant, and every answer is a 200.
    const refreshesBefore = provider.grants('refresh_token');
    const statuses: number[] = [];
    await waitFor(
      'a refresh_token grant at the provider',
      async () => {
        statuses.push((await hop(jar, path)).status);
        return provider.grants('refresh_token') > refreshesBefore;
      },
      { intervalMs: 250 },
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect((await hop(jar, path)).status).toBe(200); // renewed
    // The provider goes away: the session goes on past its ID token's expiry (renewal is tried again later);
    // sign-in says it is down.
    await provider.stop();
    await staysTrue(
      'the session answering while the provider is down',
      async () => (await hop(jar, path)).status === 200,
      2500,
      { intervalMs: 250 },
    );
    const options = JSON.parse((await hop(new CookieJar(), `${app.httpsUrl}${AUTH}/providers`)).body) as {
      oidc: { available: boolean; problem?: string };
    };
    expect(options.oidc.available).toBe(false);
    const refused = await hop(new CookieJar(), `${app.httpsUrl}${AUTH}/sign-in`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatch(/identity provider cannot be reached/);
    // Back, and the administrator revokes alice's refresh tokens: her session ends at its next renewal.
    await startIdp(2);
    await waitFor('the provider to be seen up again', async () => {
      const answer = await hop(new CookieJar(), `${app.httpsUrl}${AUTH}/providers`);
      return (JSON.parse(answer.body) as { oidc: { available: boolean } }).oidc.available || undefined;
    });
    const second = await signIn('alice');
    expect(provider.revokeRefreshTokens('alice')).toBeGreaterThan(0);
    const after = await waitFor(
      'the session ended at its next renewal',
      async () => {
        const answer = await hop(second.jar, path);
        return answer.status !== 200 && answer;
      },
      { intervalMs: 250 },
    );
    expect(after.status).toBe(401);
    await provider.stop();
    await startIdp();
  }, 60_000);
});

describe('Chromium: sign in with the provider, scale, see yourself in the audit, sign out', () => {
  let browser: TestBrowser;

  beforeAll(async () => {
    const created = await app.as('admin')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: nginx('web-scaled'),
    });
    expect(created.status).toBe(201);
    browser = await launchBrowser({ trustCertificates: [join(CLUSTER_DIR, 'pki/control-plane.crt')] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('goes through the login form and back, writes as alice, and the cookie dies with sign-out', async () => {
    const page = await browser.context.newPage();
    await signInThroughProvider(page, app.httpsUrl, 'alice');
    await page.getByText('oidc:alice').first().waitFor();
    const cookies = await browser.context.cookies(app.httpsUrl);
    const session = cookies.find((c) => c.name === SESSION_COOKIE)!;
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('ngx-session');

    await page.goto(`${app.httpsUrl}/nginxes/${NS}/web-scaled`);
    // The live connection's handshake is authenticated by the same session cookie.
    await page.locator('[data-testid="connection-state"][data-state="live"]').waitFor();
    const input = page.getByTestId('scale-input');
    await input.fill('0');
    await page.getByRole('button', { name: 'Increase replicas' }).click();
    await page.getByRole('button', { name: 'Increase replicas' }).click();
    await page.getByRole('button', { name: 'Scale', exact: true }).click();
    await waitFor('the scale to land', async () => {
      const got = (await (
        await app.as('admin')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes/web-scaled`)
      ).json()) as {
        spec: { replicas: number };
      };
      return got.spec.replicas === 2 || undefined;
    });
    await page.goto(`${app.httpsUrl}/audit?namespace=${NS}&name=web-scaled`);
    await page.getByRole('tab', { name: 'Changes' }).click();
    await waitFor(
      'the scale in the change log',
      async () => (await page.getByTestId('change-row').count()) >= 2,
    );
    expect(await page.getByTestId('change-table').innerText()).toContain('oidc:alice');
    // The scale (the newest row) names her, her email, her groups and how she signed in.
    await page.getByTestId('change-row').first().getByRole('button').click();
    expect(await page.getByTestId('change-person').innerText()).toMatch(
      /^oidc:alice <alice@example\.test> \(signed in with OIDC\)$/,
    );
    expect(await page.getByTestId('change-person-groups').innerText()).toBe('oidc:team-a');
    await screenshot(page, 'oidc-signed-in-change-log');

    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider asks whether to sign out there too; then back to our sign-in page.
    await page.waitForURL((url) => url.origin === ISSUER);
    const yes = page.getByRole('button', { name: /yes|sign.?out/i }).first();
    if (await yes.count()) await yes.click();
    await page.waitForURL((url) => url.origin === app.httpsUrl && url.pathname === '/sign-in');
    const dead = new CookieJar();
    dead.take(app.httpsUrl, [`${SESSION_COOKIE}=${session.value}`]);
    expect((await sessionOf(dead)).status).toBe(401);
    expect((await hop(dead, `${app.httpsUrl}/apis/mycompany.com/v1/namespaces/${NS}/nginxes`)).status).toBe(
      401,
    );
  }, 120_000);
});

async function sessionOfApp(jar: CookieJar, target: ControlPlane) {
  const answer = await hop(jar, `${target.httpsUrl}${AUTH}/session`);
  return JSON.parse(answer.body) as Record<string, unknown>;
}
