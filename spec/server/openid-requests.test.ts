import test, { type ExecutionContext } from 'ava';
import { decodeJwt, Client, manualClock } from '../helpers/http.js';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { authorizeURL, checker, exchange, signIn, submitLogin } from './fixtures.js';
import { pemKey, RP, RP_REDIRECT } from './openid-fixtures.js';

/**
 * The OpenID parameters of an authorization request at the local provider, each case on a real
 * standalone server with an injected clock: what it accepts, what it refuses and how the refusal reads.
 */

/** A confidential client without PKCE, as the certification plans run. */
const CLIENT = { ...RP, requirePKCE: false };

async function server(t: ExecutionContext, extra: Record<string, unknown> = {}) {
  const clock = manualClock();
  const srv = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    checker,
    clients: [CLIENT],
    signing: { alg: 'EdDSA', key: pemKey() },
    throttle: false,
    clock,
    ...extra,
  });
  t.teardown(() => srv.close());
  return { url: srv.url, clock };
}

const base = { client_id: CLIENT.id, redirect_uri: RP_REDIRECT, scope: 'openid' };

/** Where an authorization request sent the browser: the redirect's query, or a page's status. */
async function answer(browser: Client, url: string): Promise<URLSearchParams | number> {
  const res = await browser.fetch(url);
  return res.status === 302 ? new URL(res.headers.get('location')!).searchParams : res.status;
}

/** The id_token a code from `callback` gives. */
async function idToken(url: string, callback: URL): Promise<Record<string, any>> {
  const res = await exchange(url, CLIENT, { code: callback.searchParams.get('code')!, redirect_uri: RP_REDIRECT });
  return decodeJwt(((await res.json()) as { id_token: string }).id_token);
}

test('max_age=0 asks for a new sign-in even within the second of the last one; max_age=60 does not', async (t) => {
  const { url } = await server(t);
  const browser = new Client(url);
  await signIn(browser, authorizeURL(url, base), 'alice', 'wonderland');
  t.is(await answer(browser, authorizeURL(url, { ...base, max_age: '0' })), 200, 'the login page');
  const again = await answer(browser, authorizeURL(url, { ...base, max_age: '60' }));
  t.truthy((again as URLSearchParams).get('code'));
});

test('id_token_hint: a hint naming the signed-in user passes prompt=none; another user → login_required; not our id_token → invalid_request', async (t) => {
  const { url } = await server(t);
  const browser = new Client(url);
  const alice = await idToken(url, await signIn(browser, authorizeURL(url, base), 'alice', 'wonderland'));
  const bobBrowser = new Client(url);
  const bobCallback = await signIn(bobBrowser, authorizeURL(url, base), 'bob', 'builder');
  const bobToken = (
    (await (
      await exchange(url, CLIENT, { code: bobCallback.searchParams.get('code')!, redirect_uri: RP_REDIRECT })
    ).json()) as { id_token: string }
  ).id_token;
  t.is(alice.sub, 'alice');
  const ok = (await answer(
    bobBrowser,
    authorizeURL(url, { ...base, prompt: 'none', id_token_hint: bobToken }),
  )) as URLSearchParams;
  t.truthy(ok.get('code'));
  const other = (await answer(
    browser,
    authorizeURL(url, { ...base, prompt: 'none', id_token_hint: bobToken }),
  )) as URLSearchParams;
  t.is(other.get('error'), 'login_required');
  const forged = bobToken.slice(0, -4) + (bobToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  const bad = (await answer(browser, authorizeURL(url, { ...base, id_token_hint: forged }))) as URLSearchParams;
  t.is(bad.get('error'), 'invalid_request');
  t.is(bad.get('code'), null);
});

test('id_token_hint naming bob while alice signs in on the page → login_required, no code', async (t) => {
  const { url } = await server(t);
  const bobCallback = await signIn(new Client(url), authorizeURL(url, base), 'bob', 'builder');
  const bobToken = (
    (await (
      await exchange(url, CLIENT, { code: bobCallback.searchParams.get('code')!, redirect_uri: RP_REDIRECT })
    ).json()) as { id_token: string }
  ).id_token;
  const browser = new Client(url);
  const { res } = await submitLogin(
    browser,
    authorizeURL(url, { ...base, id_token_hint: bobToken }),
    'alice',
    'wonderland',
  );
  const back = (await answer(browser, new URL(res.headers.get('location')!, url).href)) as URLSearchParams;
  t.is(back.get('error'), 'login_required');
  t.is(back.get('code'), null);
});

test('login_hint fills the user-name field of the login page', async (t) => {
  const { url } = await server(t);
  const page = await (await new Client(url).fetch(authorizeURL(url, { ...base, login_hint: 'alice' }))).text();
  t.regex(page, /name="username"[^>]*value="alice"/);
});

test('an authorization request by POST is answered 303 to the same request as a GET; a parameter repeated in the form is refused there', async (t) => {
  const { url } = await server(t);
  const form = new URLSearchParams({ ...base, response_type: 'code', state: 's1' });
  const res = await fetch(`${url}/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  t.is(res.status, 303);
  const to = new URL(res.headers.get('location')!, url);
  t.deepEqual(Object.fromEntries(to.searchParams), Object.fromEntries(form));
  form.append('state', 's2');
  const twice = await fetch(`${url}/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  const again = await fetch(new URL(twice.headers.get('location')!, url), { redirect: 'manual' });
  t.is(again.status, 400);
  t.is(again.headers.get('location'), null);
});

test('malformed OpenID parameters go back to the client as invalid_request: prompt=none with another value, max_age not a number, claims not a JSON object', async (t) => {
  const { url } = await server(t);
  const browser = new Client(url);
  const malformed: Record<string, string>[] = [
    { prompt: 'none login' },
    { max_age: '-1' },
    { max_age: 'soon' },
    { claims: '[1]' },
    { claims: '{' },
  ];
  for (const bad of malformed) {
    const back = (await answer(browser, authorizeURL(url, { ...base, ...bad }))) as URLSearchParams;
    t.is(back.get('error'), 'invalid_request', JSON.stringify(bad));
    t.is(back.get('state'), 'st4te');
  }
});

test('request objects: an unsigned one is processed (its parameters win); a signed one, one naming another client, or request_uri are refused', async (t) => {
  const { url } = await server(t);
  const browser = new Client(url);
  await signIn(browser, authorizeURL(url, base), 'alice', 'wonderland');
  const object = (claims: object, alg = 'none', signature = '') =>
    `${Buffer.from(JSON.stringify({ alg })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  const ok = (await answer(
    browser,
    authorizeURL(url, { ...base, request: object({ ...base, state: 'from-object', nonce: 'n1' }) }),
  )) as URLSearchParams;
  t.is(ok.get('state'), 'from-object');
  const token = await idToken(url, new URL(`${RP_REDIRECT}?${ok}`));
  t.is(token.nonce, 'n1');
  const signed = (await answer(
    browser,
    authorizeURL(url, { ...base, request: object(base, 'RS256', 'c2ln') }),
  )) as URLSearchParams;
  t.is(signed.get('error'), 'invalid_request_object');
  const other = (await answer(
    browser,
    authorizeURL(url, { ...base, request: object({ ...base, client_id: 'someone-else' }) }),
  )) as URLSearchParams;
  t.is(other.get('error'), 'invalid_request_object');
  const byReference = (await answer(
    browser,
    authorizeURL(url, { ...base, request_uri: 'https://rp.example/r' }),
  )) as URLSearchParams;
  t.is(byReference.get('error'), 'request_uri_not_supported');
});

test('the claims option: only the claims of the scopes asked for, and those a claims parameter names, reach the id_token and userinfo', async (t) => {
  const { url } = await server(t, {
    claims: () => ({ name: 'Alice', email: 'a@example.test', phone_number: '+1 555', address: { locality: 'Oxford' } }),
  });
  const browser = new Client(url);
  const claims = JSON.stringify({ id_token: { phone_number: null }, userinfo: { address: null } });
  const callback = await signIn(
    browser,
    authorizeURL(url, { ...base, scope: 'openid email', claims }),
    'alice',
    'wonderland',
  );
  const res = await exchange(url, CLIENT, { code: callback.searchParams.get('code')!, redirect_uri: RP_REDIRECT });
  const tokens = (await res.json()) as { id_token: string; access_token: string };
  const id = decodeJwt(tokens.id_token);
  t.is(id.email, 'a@example.test');
  t.is(id.phone_number, '+1 555', 'named for the id_token');
  t.false('name' in id || 'address' in id);
  const info = await (
    await fetch(`${url}/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })
  ).json();
  t.deepEqual(info, { sub: 'alice', email: 'a@example.test', address: { locality: 'Oxford' } });
});

test('userinfo: the token in a POST body works; in the header and the body at once → 400; no token at all → 401 with a bare Bearer challenge', async (t) => {
  const { url } = await server(t);
  const callback = await signIn(new Client(url), authorizeURL(url, base), 'alice', 'wonderland');
  const res = await exchange(url, CLIENT, { code: callback.searchParams.get('code')!, redirect_uri: RP_REDIRECT });
  const { access_token } = (await res.json()) as { access_token: string };
  const body = await fetch(`${url}/userinfo`, { method: 'POST', body: new URLSearchParams({ access_token }) });
  t.is(body.status, 200);
  t.is(((await body.json()) as { sub: string }).sub, 'alice');
  const both = await fetch(`${url}/userinfo`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${access_token}` },
    body: new URLSearchParams({ access_token }),
  });
  t.is(both.status, 400);
  const none = await fetch(`${url}/userinfo`);
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), 'Bearer');
});

test('client options are checked at start: an unknown field, a bad flag, an algorithm without its key or without any key', async (t) => {
  const key = { alg: 'EdDSA', key: pemKey() } as const;
  const start = (client: object, signing: typeof key | undefined = key) =>
    startOAuth2Server({ url: 'http://127.0.0.1:0', checker, clients: [{ ...CLIENT, ...client }], signing });
  await t.throwsAsync(start({ refreshToken: true }), { message: /clients\[0\]: unknown field "refreshToken"/ });
  await t.throwsAsync(start({ requirePKCE: 'no' }), { message: 'clients[0].requirePKCE must be a boolean' });
  await t.throwsAsync(start({ idTokenSignedResponseAlg: 'ES256' }), {
    message: /needs ES256 signing keys \(available: RS256, EdDSA\)/,
  });
  await t.throwsAsync(
    startOAuth2Server({
      url: 'http://127.0.0.1:0',
      checker,
      clients: [{ ...CLIENT, idTokenSignedResponseAlg: 'RS256' }],
    }),
    { message: /without signing keys/ },
  );
  await t.throwsAsync(start({ idTokenSignedResponseAlg: 'HS256' }), { message: /must be one of RS256, EdDSA, ES256/ });
  await t.throwsAsync(
    startOAuth2Server({
      url: 'http://127.0.0.1:0',
      checker,
      rsaKey: 'not a key',
      signing: { alg: 'EdDSA', key: pemKey() },
    }),
    { message: /^rsaKey: / },
  );
});
