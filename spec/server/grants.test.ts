import test from 'ava';
import { startOAuth2Server, type OAuth2ServerOptions } from '../../lib/providers/oauth2-server/local.js';
import { Client, manualClock } from '../helpers/http.js';
import { authorizeURL, checker, exchange, form, pkce, signIn, submitLogin } from './fixtures.js';

const REDIRECT = 'http://127.0.0.1:9/cb';
const CLIENT = { id: 'app', secret: 'app-secret' };

async function start(t: { teardown(fn: () => Promise<void>): void }, extra: Partial<OAuth2ServerOptions> = {}) {
  const server = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    checker,
    clients: [{ ...CLIENT, redirectURIs: [REDIRECT] }],
    ...extra,
  });
  t.teardown(() => server.close());
  return server;
}

/** Signs bob in and returns a fresh code with the verifier that goes with it. */
async function code(base: string, browser = new Client(base)) {
  const p = pkce();
  const cb = await signIn(
    browser,
    authorizeURL(base, {
      client_id: CLIENT.id,
      redirect_uri: REDIRECT,
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    }),
    'bob',
    'builder',
  );
  t0(cb.searchParams.get('state') === 'st4te');
  return { code: cb.searchParams.get('code')!, verifier: p.verifier, browser };
}
function t0(ok: boolean) {
  if (!ok) throw new Error('state was not returned');
}

test('unregistered redirect URI → 400, never redirected to', async (t) => {
  const server = await start(t);
  const p = pkce();
  for (const redirect of [
    'http://127.0.0.1:9/cb/other',
    'http://127.0.0.1:9/cb?x=1',
    'https://evil.example/cb',
    'http://127.0.0.1:9/CB',
  ]) {
    const res = await fetch(
      authorizeURL(server.url, {
        client_id: CLIENT.id,
        redirect_uri: redirect,
        code_challenge: p.challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    t.is(res.status, 400, redirect);
    t.is(res.headers.get('location'), null);
  }
  const unknown = await fetch(authorizeURL(server.url, { client_id: 'nobody', redirect_uri: REDIRECT }), {
    redirect: 'manual',
  });
  t.is(unknown.status, 400);
  // A redirect URI that does match is checked again at the token endpoint.
  const { code: c, verifier } = await code(server.url);
  const res = await exchange(server.url, CLIENT, {
    code: c,
    redirect_uri: 'http://127.0.0.1:9/other',
    code_verifier: verifier,
  });
  t.is(res.status, 400);
  t.is(((await res.json()) as { error: string }).error, 'invalid_grant');
});

test('reused code → 400, and the token issued for it is revoked', async (t) => {
  const server = await start(t);
  const { code: c, verifier } = await code(server.url);
  const first = await exchange(server.url, CLIENT, { code: c, redirect_uri: REDIRECT, code_verifier: verifier });
  t.is(first.status, 200);
  t.is(first.headers.get('cache-control'), 'no-store');
  const token = (await first.json()) as { access_token: string; token_type: string; expires_in: number };
  t.is(token.token_type, 'Bearer');
  t.is(token.expires_in, 3600);
  const info = await fetch(`${server.url}/user`, { headers: { Authorization: `Bearer ${token.access_token}` } });
  t.deepEqual(await info.json(), { id: 'bob', name: 'bob', picture: `${server.url}/avatar?user=bob` });

  const second = await exchange(server.url, CLIENT, { code: c, redirect_uri: REDIRECT, code_verifier: verifier });
  t.is(second.status, 400);
  t.is(((await second.json()) as { error: string }).error, 'invalid_grant');
  const revoked = await fetch(`${server.url}/user`, { headers: { Authorization: `Bearer ${token.access_token}` } });
  t.is(revoked.status, 401);
  t.is(revoked.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
});

test('wrong PKCE verifier → 400, and the code is spent', async (t) => {
  const server = await start(t);
  const { code: c, verifier } = await code(server.url);
  const wrong = await exchange(server.url, CLIENT, { code: c, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
  t.is(wrong.status, 400);
  t.deepEqual(await wrong.json(), { error: 'invalid_grant', error_description: 'code_verifier does not match' });
  t.is((await exchange(server.url, CLIENT, { code: c, redirect_uri: REDIRECT, code_verifier: verifier })).status, 400);
  const d = await code(server.url);
  t.is(
    (await exchange(server.url, CLIENT, { code: d.code, redirect_uri: REDIRECT })).status,
    400,
    'a missing verifier is wrong too',
  );
});

test('PKCE is required: an authorize request without S256 goes back with invalid_request', async (t) => {
  const server = await start(t);
  for (const q of [
    {} as Record<string, string>,
    { code_challenge: pkce().challenge, code_challenge_method: 'plain' },
    { code_challenge: 'short', code_challenge_method: 'S256' },
  ]) {
    const res = await fetch(authorizeURL(server.url, { client_id: CLIENT.id, redirect_uri: REDIRECT, ...q }), {
      redirect: 'manual',
    });
    t.is(res.status, 302);
    const back = new URL(res.headers.get('location')!);
    t.is(back.origin + back.pathname, REDIRECT);
    t.is(back.searchParams.get('error'), 'invalid_request');
    t.is(back.searchParams.get('state'), 'st4te');
  }
  const type = await fetch(
    authorizeURL(server.url, { client_id: CLIENT.id, redirect_uri: REDIRECT, response_type: 'token' }),
    { redirect: 'manual' },
  );
  t.is(new URL(type.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
});

test('CSRF token missing, wrong, or a cross-origin post → refused with the form again', async (t) => {
  const server = await start(t);
  const url = authorizeURL(server.url, {
    client_id: CLIENT.id,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  const missing = await submitLogin(new Client(server.url), url, 'bob', 'builder', '');
  t.is(missing.res.status, 403);
  t.regex(await missing.res.text(), /role="alert">The sign-in form expired/);
  const wrong = await submitLogin(new Client(server.url), url, 'bob', 'builder', 'f'.repeat(40));
  t.is(wrong.res.status, 403);
  // A post with no session at all (what a cross-site form gets: the SameSite=Lax cookie stays home).
  const page = await new Client(server.url).fetch(url);
  const { action, csrf } = form(await page.text());
  const noCookie = await fetch(new URL(action, url), {
    method: 'POST',
    body: new URLSearchParams({ username: 'bob', password: 'builder', csrf_token: csrf }),
    redirect: 'manual',
  });
  t.is(noCookie.status, 403);
  const browser = new Client(server.url);
  const p2 = await browser.fetch(url);
  const f2 = form(await p2.text());
  const foreign = await browser.fetch(new URL(f2.action, url).href, {
    method: 'POST',
    headers: { Origin: 'https://evil.example' },
    form: { username: 'bob', password: 'builder', csrf_token: f2.csrf },
  });
  t.is(foreign.status, 403);
});

test('token endpoint: wrong client secret → 401 invalid_client; unknown grant type → 400', async (t) => {
  const server = await start(t);
  const { code: c, verifier } = await code(server.url);
  const bad = await exchange(
    server.url,
    { id: CLIENT.id, secret: 'nope' },
    { code: c, redirect_uri: REDIRECT, code_verifier: verifier },
  );
  t.is(bad.status, 401);
  t.is(((await bad.json()) as { error: string }).error, 'invalid_client');
  const body = await fetch(`${server.url}/access_token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }),
  });
  t.is(body.status, 200, 'credentials as form fields work too, and a refused client did not burn the code');
  const grant = await exchange(server.url, CLIENT, { grant_type: 'password' });
  t.is(((await grant.json()) as { error: string }).error, 'unsupported_grant_type');
  t.is((await fetch(`${server.url}/access_token`)).status, 405);
});

test('codes and tokens expire by the clock', async (t) => {
  const clock = manualClock();
  const server = await start(t, { clock, codeTTL: '1m', tokenTTL: '10m' });
  const old = await code(server.url);
  clock.advance(61_000);
  t.is(
    (await exchange(server.url, CLIENT, { code: old.code, redirect_uri: REDIRECT, code_verifier: old.verifier }))
      .status,
    400,
  );
  const fresh = await code(server.url);
  const res = await exchange(server.url, CLIENT, {
    code: fresh.code,
    redirect_uri: REDIRECT,
    code_verifier: fresh.verifier,
  });
  const { access_token, expires_in } = (await res.json()) as { access_token: string; expires_in: number };
  t.is(expires_in, 600);
  const info = () => fetch(`${server.url}/user`, { headers: { Authorization: `Bearer ${access_token}` } });
  t.is((await info()).status, 200);
  clock.advance(600_000);
  t.is((await info()).status, 401);
});

test('failed sign-ins for one user are throttled: 5 wrong passwords, then 429 without the checker, until the lock-out ends', async (t) => {
  let checks = 0;
  const clock = manualClock();
  const server = await start(t, {
    clock,
    checker: (user: string, passwd: string) => {
      checks++;
      return user === 'alice' && passwd === 'wonderland';
    },
  });
  const url = authorizeURL(server.url, {
    client_id: CLIENT.id,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
  });
  const browser = new Client(server.url);
  const statuses: number[] = [];
  let last: Response | undefined;
  for (let i = 0; i < 8; i++) {
    last = (await submitLogin(browser, url, 'Alice', `guess-${i}`)).res;
    statuses.push(last.status);
  }
  t.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429, 429]);
  t.is(checks, 5, 'the checker is not called while locked out');
  t.is(last!.headers.get('retry-after'), '60');
  t.regex(await last!.text(), /Too many failed attempts/);
  t.is(
    (await submitLogin(browser, url, 'alice', 'wonderland')).res.status,
    429,
    'the name is locked out, whatever its case',
  );
  clock.advance(60_000);
  t.is((await submitLogin(browser, url, 'alice', 'wonderland')).res.status, 303, 'signed in once the lock-out ended');
});

test('a token request over the body cap → 413 "request body too large", and no server error is logged', async (t) => {
  const errors: string[] = [];
  const server = await start(t, { logger: { info() {}, warn() {}, error: (m: string) => void errors.push(m) } });
  const res = await fetch(`${server.url}/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=authorization_code&code=${'x'.repeat(64 * 1024)}`,
  });
  t.is(res.status, 413);
  t.is((await res.text()).trim(), 'request body too large');
  t.deepEqual(errors, []);
});
