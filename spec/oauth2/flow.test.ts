import test from 'ava';
import { createHash } from 'node:crypto';
import { Client, decodeJwt, rawGet, startApp, started } from '../helpers/http.js';
import { options, standinLogin, startLogin } from './fixtures.js';
import { startStandin } from './standin.js';

const ghUser = { login: 'lll', id: 1345027, name: 'Lev', avatar_url: 'https://avatars.example/lll.png' };

async function setup(
  t: any,
  entry: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  info: unknown = ghUser,
) {
  const standin = await startStandin(info);
  t.teardown(() => standin.close());
  const app = await startApp(
    options([{ name: 'github', cid: 'cid', csecret: 'secret', ...standin.endpoints(), ...entry }], extra),
  );
  t.teardown(() => app.close());
  return { standin, app, c: new Client(app.url) };
}

const errorOf = async (res: Response) => (await res.json()) as { error: string; code: string };
const noSession = (t: any, res: Response) =>
  t.false(
    res.headers.getSetCookie().some((c) => c.startsWith('JWT=') || c.startsWith('XSRF-TOKEN=')),
    'no session cookies',
  );

test('login sets only a path-scoped, HttpOnly, short-lived handshake cookie and 302s with state and an S256 challenge', async (t) => {
  const { c, app } = await setup(t);
  const res = await c.fetch('/auth/github/login?from=/x&site=');
  t.is(res.status, 302);
  const cookies = res.headers.getSetCookie();
  t.is(cookies.length, 1, 'a login attempt never touches the session cookies');
  const hs = c.cookie('JWT-handshake')!;
  t.is(hs.attrs.path, '/auth/github');
  t.true(hs.attrs.httponly);
  t.is(hs.attrs.samesite, 'Lax');
  t.is(hs.attrs['max-age'], '600');
  const loc = new URL(res.headers.get('location')!);
  const claims = decodeJwt(hs.value);
  t.is(loc.searchParams.get('state'), claims.handshake.state);
  t.regex(claims.handshake.state, /^[0-9a-f]{40}$/);
  t.is(claims.handshake.from, '/x');
  // S256 (RFC 7636 §4.2): the challenge sent out is BASE64URL(SHA-256(verifier)) of the verifier the handshake keeps.
  t.is(loc.searchParams.get('code_challenge_method'), 'S256');
  t.regex(claims.handshake.verifier, /^[A-Za-z0-9_-]{43,128}$/);
  t.is(
    loc.searchParams.get('code_challenge'),
    createHash('sha256').update(claims.handshake.verifier).digest('base64url'),
  );
  t.is(claims.exp - claims.iat, 600);
  t.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox; frame-ancestors 'none'");
  t.is(loc.searchParams.get('redirect_uri'), `${app.url}/auth/github/callback`);
});

test('a login attempt leaves a live session alone until the callback succeeds', async (t) => {
  const { c } = await setup(t);
  t.is((await standinLogin(c, 'github')).status, 200);
  const session = c.jar.get('JWT');
  await startLogin(c, 'github');
  t.is(c.jar.get('JWT'), session);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
});

test('state mismatch → 403 state_mismatch, nothing set, and the handshake survives for the real callback', async (t) => {
  const { c } = await setup(t);
  const authorize = await startLogin(c, 'github');
  const res = await c.fetch('/auth/github/callback?code=x&state=forged');
  t.is(res.status, 403);
  t.deepEqual(await errorOf(res), { error: 'github: unexpected state', code: 'state_mismatch' });
  t.deepEqual(res.headers.getSetCookie(), []);
  const ok = await c.fetch(`/auth/github/callback?code=x&state=${authorize.searchParams.get('state')}`);
  t.is(ok.status, 200);
});

test('missing handshake → 403 invalid_handshake, nothing set', async (t) => {
  const { c } = await setup(t);
  const res = await c.fetch('/auth/github/callback?code=x&state=y');
  t.is(res.status, 403);
  t.is((await errorOf(res)).code, 'invalid_handshake');
  t.deepEqual(res.headers.getSetCookie(), []);
});

test('a handshake from another provider or a forged one is refused', async (t) => {
  const standin = await startStandin(ghUser);
  t.teardown(() => standin.close());
  const app = await startApp(
    options([
      { name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() },
      {
        kind: 'oauth2',
        name: 'other',
        client: { cid: 'c', csecret: 's' },
        ...standin.endpoints(),
        mapUser: (d: any) => ({ id: d.login }),
      },
    ]),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const state = (await startLogin(c, 'github')).searchParams.get('state');
  const hs = c.jar.get('JWT-handshake')!;
  const res = await c.fetch(`/auth/other/callback?code=x&state=${state}`, {
    headers: { cookie: `JWT-handshake=${hs}` },
  });
  t.is(res.status, 403);
  t.is((await errorOf(res)).code, 'invalid_handshake');
  const forged = hs.slice(0, -4) + 'AAAA';
  const res2 = await c.fetch(`/auth/github/callback?code=x&state=${state}`, {
    headers: { cookie: `JWT-handshake=${forged}` },
  });
  t.is(res2.status, 403);
});

test('a replayed callback is refused: the handshake cookie is cleared on use', async (t) => {
  const { c } = await setup(t);
  const state = (await startLogin(c, 'github')).searchParams.get('state');
  const url = `/auth/github/callback?code=x&state=${state}`;
  const first = await c.fetch(url);
  t.is(first.status, 200);
  const cleared = c.cookie('JWT-handshake')!;
  t.is(cleared.attrs['max-age'], '0');
  t.is(cleared.attrs.path, '/auth/github');
  const again = await c.fetch(url);
  t.is(again.status, 403);
  t.is((await errorOf(again)).code, 'invalid_handshake');
});

test('a replayed OAuth2 callback is refused without a second code exchange', async (t) => {
  const { c, standin } = await setup(t);
  const state = (await startLogin(c, 'github')).searchParams.get('state');
  // The captured handshake cookie: the first callback clears it in this client's jar, an attacker keeps it.
  const cookie = `JWT-handshake=${c.jar.get('JWT-handshake')!}`;
  const url = `/auth/github/callback?code=replay-code&state=${state}`;
  const first = await c.fetch(url, { headers: { cookie } });
  t.is(first.status, 200);
  t.true(
    first.headers.getSetCookie().some((h) => h.startsWith('JWT=')),
    'control: the first callback logs in',
  );
  const again = await fetch(`${c.base}${url}`, { headers: { cookie }, redirect: 'manual' });
  t.is(again.status, 403);
  t.is(again.headers.get('content-type'), 'application/json; charset=utf-8');
  t.deepEqual(await errorOf(again), {
    error: 'github: handshake already used (callback replayed)',
    code: 'invalid_handshake',
  });
  noSession(t, again);
  t.is(
    standin.seen.filter((s) => s.path === '/token' && s.body.get('code') === 'replay-code').length,
    1,
    'one code exchange',
  );
  t.is(standin.seen.filter((s) => s.path === '/user').length, 1, 'one user-info call');
});

test('callback by POST (form_post response mode) works like GET', async (t) => {
  const { c } = await setup(t);
  const state = (await startLogin(c, 'github')).searchParams.get('state')!;
  const res = await c.fetch('/auth/github/callback', { method: 'POST', form: { code: 'x', state } });
  t.is(res.status, 200);
  t.is(((await res.json()) as { name: string }).name, 'Lev');
});

test('from on a foreign host, //evil, /\\evil, javascript: → the User JSON, not a redirect', async (t) => {
  const { c } = await setup(t);
  for (const from of [
    'https://evil.example/x',
    '//evil.example/x',
    '/\\evil.example/x',
    'javascript:alert(1)',
    'http://127.0.0.1.evil.example/',
  ]) {
    const res = await standinLogin(c, 'github', `from=${encodeURIComponent(from)}`);
    t.is(res.status, 200, from);
    t.is(res.headers.get('location'), null, from);
    t.is(((await res.json()) as { name: string }).name, 'Lev', from);
  }
});

test('same-origin from → 303 to it; an allow-listed host too', async (t) => {
  const { c, app } = await setup(t, {}, { allowedRedirects: ['partner.example'] });
  const res = await standinLogin(c, 'github', `from=${encodeURIComponent('/dashboard?tab=1')}`);
  t.is(res.status, 303);
  t.is(res.headers.get('location'), `${app.url}/dashboard?tab=1`);
  t.truthy(c.jar.get('JWT'));
  const abs = await standinLogin(new Client(app.url), 'github', `from=${encodeURIComponent(`${app.url}/a`)}`);
  t.is(abs.headers.get('location'), `${app.url}/a`);
  const partner = await standinLogin(
    new Client(app.url),
    'github',
    `from=${encodeURIComponent('https://partner.example/back')}`,
  );
  t.is(partner.status, 303);
  t.is(partner.headers.get('location'), 'https://partner.example/back');
});

test('site outside the audiences → 403 at login, no handshake; a listed site ends up as the token aud', async (t) => {
  const { c } = await setup(t, {}, { audiences: ['site-a'] });
  const res = await c.fetch('/auth/github/login?site=site-x');
  t.is(res.status, 403);
  t.is((await errorOf(res)).code, 'aud_not_allowed');
  t.deepEqual(res.headers.getSetCookie(), []);
  const ok = await standinLogin(c, 'github', 'site=site-a');
  t.is(ok.status, 200);
  t.is(decodeJwt(c.jar.get('JWT')!).aud, 'site-a');
  const viaAud = new Client(c.base);
  t.is((await standinLogin(viaAud, 'github', 'aud=site-a')).status, 200);
});

test('session=1 gives session-only cookies; noava=1 drops the picture and marks the token', async (t) => {
  const { c, app } = await setup(t);
  await standinLogin(c, 'github', 'session=1');
  t.is(c.cookie('JWT')!.attrs['max-age'], undefined);
  t.true(decodeJwt(c.jar.get('JWT')!).sess_only);
  const d = new Client(app.url);
  const res = await standinLogin(d, 'github', 'noava=1');
  t.is(((await res.json()) as { picture: string }).picture, '');
  t.true(decodeJwt(d.jar.get('JWT')!)['no-ava']);
  t.is(d.cookie('JWT')!.attrs['max-age'], String(31 * 86400));
});

test('provider 500 at the token endpoint → 503 provider_unavailable naming the provider, no session', async (t) => {
  const { c, standin } = await setup(t);
  standin.script.tokenStatus = 500;
  standin.script.tokenBody = { error: 'server_error' };
  const res = await standinLogin(c, 'github');
  t.is(res.status, 503);
  t.deepEqual(await errorOf(res), { error: 'github: token endpoint answered 500', code: 'provider_unavailable' });
  noSession(t, res);
});

test('token endpoint 400 invalid_grant, or 200 with an error field → 502 exchange_failed', async (t) => {
  const { c, standin } = await setup(t);
  standin.script.tokenStatus = 400;
  standin.script.tokenBody = { error: 'invalid_grant' };
  const res = await standinLogin(c, 'github');
  t.is(res.status, 502);
  t.deepEqual(await errorOf(res), {
    error: 'github: code exchange refused with 400 (invalid_grant)',
    code: 'exchange_failed',
  });
  standin.script.tokenStatus = 200;
  standin.script.tokenBody = {
    error: 'bad_verification_code',
    error_description: 'The code passed is incorrect or expired.',
  };
  const res2 = await standinLogin(c, 'github');
  t.is(res2.status, 502);
  t.is((await errorOf(res2)).code, 'exchange_failed');
  standin.script.tokenBody = 'not json at all';
  const res3 = await standinLogin(c, 'github');
  t.is(res3.status, 502);
  t.is((await errorOf(res3)).code, 'bad_provider_response');
});

test('user info 500 or 401 → 503 userinfo_failed; garbage → 502; no id → 502 bad_user_info; no session', async (t) => {
  const { c, standin } = await setup(t);
  standin.script.infoStatus = 500;
  const res = await standinLogin(c, 'github');
  t.is(res.status, 503);
  t.deepEqual(await errorOf(res), { error: 'github: user info answered 500', code: 'userinfo_failed' });
  noSession(t, res);
  standin.script.infoStatus = 200;
  standin.script.infoBody = '<html>oops</html>';
  const res2 = await standinLogin(c, 'github');
  t.is(res2.status, 502);
  t.is((await errorOf(res2)).code, 'bad_provider_response');
  standin.script.infoBody = { name: 'no login here' };
  const res3 = await standinLogin(c, 'github');
  t.is(res3.status, 502);
  t.deepEqual(await errorOf(res3), { error: 'github: user info carries no user id', code: 'bad_user_info' });
  noSession(t, res3);
});

test('a provider that never answers → 503 provider_timeout after the configured timeout', async (t) => {
  const { c, standin } = await setup(t, { timeout: 150 });
  standin.script.hang.add('token');
  const res = await standinLogin(c, 'github');
  t.is(res.status, 503);
  t.is((await errorOf(res)).code, 'provider_timeout');
  t.regex(
    ((await (await standinLogin(c, 'github')).json()) as { error: string }).error,
    /^github: token endpoint gave no answer within 150 ms/,
  );
  standin.script.hang = new Set(['info']);
  const res2 = await standinLogin(c, 'github');
  t.is(res2.status, 503);
  t.is((await errorOf(res2)).code, 'provider_timeout');
});

test('an oversized user-info body (over 1 MiB) → 502 response_too_large; a configured smaller cap too', async (t) => {
  const big = JSON.stringify({ ...ghUser, padding: 'x'.repeat(1024 * 1024) });
  const { c } = await setup(t, {}, {}, big);
  const res = await standinLogin(c, 'github');
  t.is(res.status, 502);
  t.is((await errorOf(res)).code, 'response_too_large');
  const small = await setup(t, { maxResponseBytes: 64 });
  const res2 = await standinLogin(small.c, 'github');
  t.is(res2.status, 502);
  t.is((await errorOf(res2)).code, 'response_too_large');
});

test('a provider that is down → 503 provider_unavailable', async (t) => {
  const { c, standin } = await setup(t);
  await standin.close();
  const res = await standinLogin(c, 'github');
  t.is(res.status, 503);
  t.is((await errorOf(res)).code, 'provider_unavailable');
});

test('?error=access_denied at the callback → 403 access_denied; other errors → 502 provider_error', async (t) => {
  const { c } = await setup(t);
  let state = (await startLogin(c, 'github')).searchParams.get('state');
  const res = await c.fetch(`/auth/github/callback?error=access_denied&state=${state}`);
  t.is(res.status, 403);
  t.deepEqual(await errorOf(res), { error: 'github: login was cancelled or denied', code: 'access_denied' });
  state = (await startLogin(c, 'github')).searchParams.get('state');
  const res2 = await c.fetch(`/auth/github/callback?error=temporarily_unavailable%3Cscript%3E&state=${state}`);
  t.is(res2.status, 502);
  t.deepEqual(await errorOf(res2), {
    error: 'github: provider refused the login (temporarily_unavailablescript)',
    code: 'provider_error',
  });
});

test('the bearer-token hook gets the provider name, the user and the provider token', async (t) => {
  const calls: unknown[] = [];
  const { c } = await setup(t, {
    bearerTokenHook: (p: string, u: { id: string }, tok: { access_token: string }) =>
      void calls.push([p, u.id, tok.access_token]),
  });
  await standinLogin(c, 'github');
  t.deepEqual(calls, [['github', 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a', 'standin-access-token']]);
});

test('the ClaimsUpdater sees the user and its changes reach the answer', async (t) => {
  const { c } = await setup(
    t,
    {},
    { claimsUpdater: (cl: any) => (cl.user ? { ...cl, user: { ...cl.user, role: 'editor' } } : cl) },
  );
  const res = await standinLogin(c, 'github');
  t.is(((await res.json()) as { role: string }).role, 'editor');
});

test('logout follows the one rule: no session or XSRF header needed, the cookies are cleared', async (t) => {
  const { c } = await setup(t);
  const without = await c.fetch('/auth/github/logout');
  t.is(without.status, 200, 'nothing to end is not an error');
  await standinLogin(c, 'github');
  t.true(c.jar.has('JWT'));
  const res = await c.fetch('/auth/github/logout');
  t.is(res.status, 200, 'a plain link, no XSRF header');
  t.false(c.jar.has('JWT'));
  t.false(c.jar.has('XSRF-TOKEN'));
  t.is(res.headers.get('cache-control'), 'no-store');
});

test('another auth route path reaches the callback URL and the handshake cookie path', async (t) => {
  const standin = await startStandin(ghUser);
  t.teardown(() => standin.close());
  const app = await startApp(
    options([{ name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() }], { authRoutePath: '/api/v1/auth' }),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch('/api/v1/auth/github/login');
  const authorize = new URL(res.headers.get('location')!);
  t.is(authorize.searchParams.get('redirect_uri'), `${app.url}/api/v1/auth/github/callback`);
  t.is(c.cookie('JWT-handshake')!.attrs.path, '/api/v1/auth/github');
  const done = await c.fetch(`/api/v1/auth/github/callback?code=x&state=${authorize.searchParams.get('state')}`);
  t.is(done.status, 200);
  t.is(
    standin.seen.find((s) => s.path === '/token')!.body.get('redirect_uri'),
    `${app.url}/api/v1/auth/github/callback`,
  );
});

test('bad options fail at start-up naming the entry: missing cid, bad URLs, unknown names, shadowing built-ins', async (t) => {
  const make = (entry: unknown) => () => started({ ...options([entry]), url: 'http://127.0.0.1:1' });
  await t.throwsAsync(make({ name: 'github' }), {
    instanceOf: TypeError,
    message: 'authKoa: providers[0] (social): cid (the client id) is required',
  });
  await t.throwsAsync(make({ name: 'github', cid: 'c', csecret: 's', endpoint: { tokenURL: 'ftp://x' } }), {
    message: /endpoint.tokenURL must be an absolute http\(s\) URL/,
  });
  await t.throwsAsync(make({ name: 'github', cid: 'c', timeout: -1 }), {
    message: /timeout must be a positive number/,
  });
  await t.throwsAsync(make({ name: 'gitlab', cid: 'c' }), { message: /"gitlab" is not a built-in provider/ });
  const custom = {
    client: { cid: 'c', csecret: 's' },
    endpoint: { authURL: 'https://a.test/a', tokenURL: 'https://a.test/t' },
    infoURL: 'https://a.test/u',
    mapUser: () => ({ id: 'x' }),
  };
  await t.throwsAsync(make({ kind: 'oauth2', name: 'github', ...custom }), {
    message: /"github" is the name of a built-in provider/,
  });
  await t.throwsAsync(make({ kind: 'oauth2', name: 'GitHub', ...custom }), { message: /built-in provider/ });
  await t.throwsAsync(make({ kind: 'oidc', name: 'google', issuer: 'https://a.test', cid: 'c' }), {
    message: /built-in provider/,
  });
  await t.throwsAsync(make({ kind: 'oauth2', name: 'dev', ...custom }), { message: /built-in provider/ });
  await t.throwsAsync(make({ kind: 'oauth2', name: 'corp', ...custom, mapUser: undefined }), {
    message: /mapUser\(data, token\) is required/,
  });
  await t.throwsAsync(make({ kind: 'oidc', name: 'corp', cid: 'c' }), { message: /issuer is required/ });
  await (await make({ kind: 'oauth2', name: 'corp', ...custom })()).close();
});

test('an absolute-form request target: the redirect_uri is built from `url`, never from the host the target names (was a 500)', async (t) => {
  const { app } = await setup(t);
  const port = Number(new URL(app.url).port);
  const res = await rawGet(port, 'http://evil.example/auth/github/login?from=/after');
  t.is(res.status, 302);
  const location = new URL(res.headers.location!);
  t.is(location.searchParams.get('redirect_uri'), `${app.url}/auth/github/callback`);
});
