import { generateKeyPairSync } from 'node:crypto';
import test from 'ava';
import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oidc from 'openid-client';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { Client, decodeJwt, manualClock } from '../helpers/http.js';
import { authorizeURL, checker, exchange, pkce, signIn } from './fixtures.js';
import { pemKey, relyingParty, rpSignIn, RP, RP_REDIRECT, SPA, startProvider } from './openid-fixtures.js';

/** An authorize request's answer, unfollowed. */
function authorizeAnswer(serverURL: string, q: Record<string, string>): Promise<Response> {
  return fetch(authorizeURL(serverURL, { redirect_uri: RP_REDIRECT, scope: 'openid', ...q }), { redirect: 'manual' });
}

/** Signs `browser` in (or finds it signed in) with `q` as the request and exchanges the code as the RP; the token answer and the callback. */
async function codeFlow(serverURL: string, browser: Client, q: Record<string, string>) {
  const p = pkce();
  const url = authorizeURL(serverURL, {
    client_id: RP.id,
    redirect_uri: RP_REDIRECT,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
    ...q,
  });
  const remembered = await browser.fetch(url);
  const callback =
    remembered.status === 302
      ? new URL(remembered.headers.get('location')!)
      : await signIn(browser, url, 'alice', 'wonderland');
  const res = await exchange(serverURL, RP, {
    code: callback.searchParams.get('code')!,
    redirect_uri: RP_REDIRECT,
    code_verifier: p.verifier,
  });
  return { callback, token: (await res.json()) as Record<string, string> };
}

test('a public client must send an S256 challenge even where requirePKCE is false; plain is refused for every client', async (t) => {
  const { serverURL } = await startProvider(t, {}, { requirePKCE: false });
  const errorOf = async (res: Response) => {
    t.is(res.status, 302);
    const back = new URL(res.headers.get('location')!);
    t.is(back.origin + back.pathname, RP_REDIRECT);
    t.is(back.searchParams.get('iss'), serverURL);
    return back.searchParams.get('error');
  };
  const { challenge, verifier } = pkce();
  t.is(
    await errorOf(await authorizeAnswer(serverURL, { client_id: SPA.id })),
    'invalid_request',
    'public client, no PKCE',
  );
  t.is(
    await errorOf(
      await authorizeAnswer(serverURL, { client_id: SPA.id, code_challenge: verifier, code_challenge_method: 'plain' }),
    ),
    'invalid_request',
    'public client, plain',
  );
  t.is(
    await errorOf(
      await authorizeAnswer(serverURL, { client_id: RP.id, code_challenge: verifier, code_challenge_method: 'plain' }),
    ),
    'invalid_request',
    'confidential client, plain',
  );
  t.is(
    await errorOf(await authorizeAnswer(serverURL, { client_id: SPA.id, code_challenge: challenge })),
    'invalid_request',
    'no method means plain (RFC 7636 §4.3)',
  );
  t.is(
    (await authorizeAnswer(serverURL, { client_id: RP.id })).status,
    200,
    'the confidential client may go without PKCE here: the login page',
  );
  t.is(
    (await authorizeAnswer(serverURL, { client_id: SPA.id, code_challenge: challenge, code_challenge_method: 'S256' }))
      .status,
    200,
  );
});

test('a redirect URI differing by a trailing slash or case is refused: 400, never redirected to', async (t) => {
  const { serverURL } = await startProvider(t);
  const { challenge } = pkce();
  for (const redirect of [`${RP_REDIRECT}/`, 'http://127.0.0.1:9/CB', 'HTTP://127.0.0.1:9/cb', `${RP_REDIRECT}?`]) {
    const res = await authorizeAnswer(serverURL, {
      client_id: RP.id,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    t.is(res.status, 400, redirect);
    t.is(res.headers.get('location'), null);
  }
  t.is(
    (await authorizeAnswer(serverURL, { client_id: RP.id, code_challenge: challenge, code_challenge_method: 'S256' }))
      .status,
    200,
    'the registered one, exactly',
  );
});

test('a code used twice → invalid_grant, and the access token issued for it is revoked', async (t) => {
  const { serverURL } = await startProvider(t);
  const config = await relyingParty(serverURL, RP);
  const { login, callback, tokens } = await rpSignIn(config, serverURL);
  const again = oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: login.verifier,
    expectedNonce: login.nonce,
    expectedState: login.state,
  });
  const err = await t.throwsAsync(again);
  t.is((err as unknown as { error: string }).error, 'invalid_grant');
  const info = await fetch(`${serverURL}/userinfo`, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
  t.is(info.status, 401);
  t.is(info.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
});

test('the id_token verifies against the published key set and fails against another key under the same kid', async (t) => {
  const { serverURL } = await startProvider(t);
  const { tokens } = await rpSignIn(await relyingParty(serverURL, RP), serverURL);
  const published = (await (await fetch(`${serverURL}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
  const rules = { issuer: serverURL, audience: 'rp' };
  t.is((await jwtVerify(tokens.id_token!, createLocalJWKSet(published), rules)).payload.sub, 'alice');
  const kid = decodeProtectedHeader(tokens.id_token!).kid;
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  const forged = createLocalJWKSet({ keys: [{ ...other, kid, alg: 'RS256', use: 'sig' }] });
  await t.throwsAsync(jwtVerify(tokens.id_token!, forged, rules), {
    instanceOf: joseErrors.JWSSignatureVerificationFailed,
  });
});

test('without signing keys the server stays a plain OAuth2 server: no discovery, key set, userinfo, id_token or iss', async (t) => {
  const { serverURL } = await startProvider(t, { signing: undefined });
  for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json', '/userinfo'])
    t.is((await fetch(serverURL + path)).status, 404, path);
  const { callback, token } = await codeFlow(serverURL, new Client(serverURL), {
    scope: 'openid profile',
    nonce: 'n-1',
  });
  t.is(callback.searchParams.get('iss'), null);
  t.truthy(token.access_token);
  t.false('id_token' in token);
});

test('a scope without openid: no id_token, and userinfo refuses the token (403 insufficient_scope) while /user answers it', async (t) => {
  const { serverURL } = await startProvider(t);
  const { token } = await codeFlow(serverURL, new Client(serverURL), { scope: 'profile' });
  t.false('id_token' in token);
  const bearer = { Authorization: `Bearer ${token.access_token}` };
  const info = await fetch(`${serverURL}/userinfo`, { headers: bearer });
  t.is(info.status, 403);
  t.is(info.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="openid"');
  t.is((await fetch(`${serverURL}/user`, { headers: bearer })).status, 200);
});

test('auth_time is when the user signed in, kept while the server remembers them; nonce only when the request sent one', async (t) => {
  const clock = manualClock();
  const { serverURL } = await startProvider(t, {}, { clock });
  const signedInAt = clock() / 1000;
  const browser = new Client(serverURL);
  const first = await codeFlow(serverURL, browser, { scope: 'openid', nonce: 'n-1' });
  t.like(decodeJwt(first.token.id_token!), { auth_time: signedInAt, iat: signedInAt, nonce: 'n-1' });
  clock.advance(5 * 60_000);
  const second = await codeFlow(serverURL, browser, { scope: 'openid' });
  const claims = decodeJwt(second.token.id_token!);
  t.like(claims, { auth_time: signedInAt, iat: signedInAt + 300, exp: signedInAt + 300 + 3600 });
  t.false('nonce' in claims);
  t.false('name' in claims, 'no profile scope, no profile claims');
});

test('bad signing options of a standalone server are refused naming the option', async (t) => {
  const start = (signing: unknown) =>
    startOAuth2Server({ url: 'http://127.0.0.1:0', checker, signing: signing as never });
  await t.throwsAsync(start({ sign: async () => 'x', keySet: () => ({ keys: [] }) }), {
    instanceOf: TypeError,
    message: /signing: a signer needs alg/,
  });
  await t.throwsAsync(start({ alg: 'EdDSA', key: 'not a key' }), {
    instanceOf: TypeError,
    message: /signing\.key must be a PEM key/,
  });
  await t.throwsAsync(start({ alg: 'ES256', key: pemKey('EdDSA') }), {
    instanceOf: TypeError,
    message: /signing\.key is a key for EdDSA, not ES256/,
  });
});
