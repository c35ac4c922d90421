import test from 'ava';
import * as oidc from 'openid-client';
import { login, PASSWORD, signUpAndConfirm } from '../accounts/rig.js';
import { Client } from '../helpers/http.js';
import { REDIRECT, RESOURCE } from './app-rig.js';
import {
  answered,
  atHashOf,
  codeFlow,
  follow,
  openIDRequest,
  openIDRig,
  payloadOf,
  relyingParty,
  RP,
} from './openid-rig.js';

/** The error of an authorization answer sent in the query. */
async function errorOf(browser: Client, url: URL): Promise<string | null> {
  const ending = await follow(browser, url);
  if (!('to' in ending)) throw new Error(`no redirect to the client: ${JSON.stringify(ending)}`);
  return ending.to.searchParams.get('error');
}

test('discovery: openid-client reads the userinfo endpoint, the id_token algorithm and the claims', async (t) => {
  const r = await openIDRig(t);
  const meta = (await relyingParty(r)).serverMetadata();
  t.is(meta.issuer, r.app.url);
  t.is(meta.userinfo_endpoint, `${r.app.url}/auth/oauth2/userinfo`);
  t.deepEqual(meta.id_token_signing_alg_values_supported, ['ES256'], 'the signing key’s, the one key set’s');
  t.deepEqual(meta.subject_types_supported, ['public']);
  for (const c of ['sub', 'auth_time', 'nonce', 'name', 'email', 'email_verified', 'picture'])
    t.true(meta.claims_supported!.includes(c), c);
  t.true(meta.claims_parameter_supported);
  t.false(meta.request_uri_parameter_supported, 'false said outright: its default is true');
});

test('openid-client: the code flow with PKCE and nonce gives an id_token it validates, and userinfo the profile', async (t) => {
  const r = await openIDRig(t);
  const user = await signUpAndConfirm(r, 'ann@example.com');
  const { config, tokens, claims, nonce } = await codeFlow(r, r.client, { scope: 'openid profile email' });
  const session = payloadOf(r.client.jar.get('JWT')!) as { auth_time: number; sid: string };
  const profile = user as { id: string; name: string };
  t.is(claims.iss, r.app.url);
  t.is(claims.sub, profile.id);
  t.is(claims.aud, 'rp');
  t.is(claims.nonce, nonce);
  t.is(claims.auth_time, session.auth_time, 'when the user logged in to the app');
  t.is(claims.sid, session.sid, "the user's app session");
  t.is(claims.at_hash, atHashOf(tokens.access_token));
  t.is(claims.email, 'ann@example.com');
  t.is(claims.name, profile.name);
  t.is(claims.email_verified, undefined, 'not claimed unless the app says so (the claims option)');
  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  t.is(info.email, 'ann@example.com');
  t.is(info.name, profile.name);
  // Without profile or email, the profile stays in: sub alone.
  const bare = await codeFlow(r, r.client, { scope: 'openid' });
  t.deepEqual(Object.keys(await oidc.fetchUserInfo(config, bare.tokens.access_token, claims.sub)), ['sub']);
  t.is(bare.claims.email, undefined);
});

test('the claims option and the claims parameter: only the claims asked for, kept with the grant for its refreshes', async (t) => {
  let phone = '+1 555 0100';
  const r = await openIDRig(t, {
    claims: (u) => ({ name: 'Ann A.', given_name: 'Ann', email: u.email, email_verified: true, phone_number: phone }),
  });
  await signUpAndConfirm(r, 'ann@example.com');
  const claims = JSON.stringify({ id_token: { given_name: null }, userinfo: { phone_number: { essential: true } } });
  const flow = await codeFlow(r, r.client, { scope: 'openid email', claims });
  t.like(flow.claims, { email: 'ann@example.com', email_verified: true, given_name: 'Ann' });
  t.is(flow.claims.phone_number, undefined, 'asked for at userinfo, not in the id_token');
  t.is(flow.claims.name, undefined, 'neither the scope nor the parameter asks for it');
  const info = await oidc.fetchUserInfo(flow.config, flow.tokens.access_token, flow.claims.sub);
  t.like(info, { email: 'ann@example.com', email_verified: true, phone_number: '+1 555 0100' });
  t.is(info.given_name, undefined);
  // The user's claims were taken when they authorized: the refresh's id_token says the same.
  phone = '+1 555 0199';
  const refreshed = await oidc.refreshTokenGrant(flow.config, flow.tokens.refresh_token!);
  const again = await oidc.fetchUserInfo(flow.config, refreshed.access_token, flow.claims.sub);
  t.is(again.phone_number, '+1 555 0100');
  t.is(refreshed.claims()!.given_name, 'Ann');
});

test('refresh (Core §12.2): a new id_token, same sub, aud, auth_time and sid, a later iat, no nonce', async (t) => {
  const r = await openIDRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const first = await codeFlow(r, r.client, { scope: 'openid email' });
  r.clock.advance(60_000);
  const config = await relyingParty(r);
  const refreshed = await oidc.refreshTokenGrant(config, first.tokens.refresh_token!);
  const claims = refreshed.claims()!;
  t.like(claims, { iss: r.app.url, sub: first.claims.sub, aud: 'rp', email: 'ann@example.com' });
  t.is(claims.auth_time, first.claims.auth_time);
  t.is(claims.sid, first.claims.sid);
  t.is(claims.iat, first.claims.iat + 60);
  t.is(claims.nonce, undefined);
  t.is(claims.at_hash, atHashOf(refreshed.access_token));
  // Narrowed without openid: no id_token.
  const narrowed = await oidc.refreshTokenGrant(config, refreshed.refresh_token!, { scope: 'email' });
  t.is(narrowed.id_token, undefined);
});

test('prompt=none answers login_required without a login, consent_required without a consent, else a code', async (t) => {
  const r = await openIDRig(t);
  const config = await relyingParty(r);
  const stranger = new Client(r.app.url);
  t.is(await errorOf(stranger, (await openIDRequest(config, { prompt: 'none' })).url), 'login_required');
  await signUpAndConfirm(r, 'ann@example.com');
  t.is(await errorOf(r.client, (await openIDRequest(config, { prompt: 'none' })).url), 'consent_required');
  await codeFlow(r, r.client);
  const { url, checks } = await openIDRequest(config, { prompt: 'none' });
  const tokens = await oidc.authorizationCodeGrant(config, await answered(r.client, url), checks);
  t.is(tokens.claims()!.sub, (payloadOf(r.client.jar.get('JWT')!).user as { id: string }).id);
  const both = await openIDRequest(config, { prompt: 'none login' });
  t.is(await errorOf(r.client, both.url), 'invalid_request');
});

test('prompt=login and max_age: the login page again, with login_hint, and back without them after a new login', async (t) => {
  const r = await openIDRig(t, { loginPage: '/signin' });
  await signUpAndConfirm(r, 'ann@example.com');
  const first = await codeFlow(r, r.client, { max_age: '3600' }, 3600);
  t.is(
    first.claims.auth_time,
    payloadOf(r.client.jar.get('JWT')!).auth_time as number,
    'a login within max_age will do',
  );
  r.clock.advance(120_000);
  for (const params of [{ max_age: '60' }, { prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
    const config = await relyingParty(r);
    const { url, checks } = await openIDRequest(config, { ...params, login_hint: 'ann@example.com' });
    const ending = await follow(r.client, url);
    if (!('login' in ending)) return t.fail(`${JSON.stringify(params)}: no login page`);
    t.is(ending.login.pathname, '/signin');
    t.is(ending.login.searchParams.get('login_hint'), 'ann@example.com');
    const from = new URL(ending.login.searchParams.get('from')!);
    t.is(from.searchParams.get('max_age'), null);
    t.is(from.searchParams.get('prompt'), null);
    t.is(from.searchParams.get('nonce'), url.searchParams.get('nonce'), 'the rest of the request as it was');
    r.clock.advance(5_000);
    t.is((await login(r.client, 'ann@example.com', PASSWORD)).status, 200);
    const maxAge = params.max_age === undefined ? undefined : Number(params.max_age);
    const tokens = await oidc.authorizationCodeGrant(config, await answered(r.client, from), { ...checks, maxAge });
    t.is(tokens.claims()!.auth_time, Math.floor(r.clock() / 1000), `${JSON.stringify(params)}: the new login`);
  }
});

test('id_token_hint: another user’s is login_required (prompt=none) or the login page; the same user’s a code; a foreign one refused', async (t) => {
  const r = await openIDRig(t);
  const bob = new Client(r.app.url);
  await signUpAndConfirm(r, 'bob@example.com', PASSWORD, bob);
  const bobs = await codeFlow(r, bob);
  await signUpAndConfirm(r, 'ann@example.com');
  const anns = await codeFlow(r, r.client);
  const config = await relyingParty(r);
  const hint = (token: string, prompt?: string) =>
    openIDRequest(config, { id_token_hint: token, ...(prompt ? { prompt } : {}) });
  t.is(await errorOf(r.client, (await hint(bobs.tokens.id_token!, 'none')).url), 'login_required');
  t.true('login' in (await follow(r.client, (await hint(bobs.tokens.id_token!)).url)));
  const own = await hint(anns.tokens.id_token!, 'none');
  const tokens = await oidc.authorizationCodeGrant(config, await answered(r.client, own.url), own.checks);
  t.is(tokens.claims()!.sub, anns.claims.sub);
  // An access token of this server is no id_token, nor is an id_token of another issuer's key.
  t.is(await errorOf(r.client, (await hint(anns.tokens.access_token, 'none')).url), 'invalid_request');
  const [h, p] = anns.tokens.id_token!.split('.');
  t.is(await errorOf(r.client, (await hint(`${h}.${p}.${'A'.repeat(86)}`)).url), 'invalid_request');
});

test('response_mode=form_post: the code is posted to the redirect URI with iss, and openid-client takes it', async (t) => {
  const r = await openIDRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const config = await relyingParty(r);
  const { url, checks } = await openIDRequest(config, { response_mode: 'form_post', scope: 'openid email' });
  const ending = await follow(r.client, url);
  if (!('posted' in ending)) return t.fail('no form posted to the client');
  const form = new URLSearchParams(await ending.posted.clone().text());
  t.is(form.get('iss'), r.app.url);
  t.truthy(form.get('code'));
  const tokens = await oidc.authorizationCodeGrant(config, ending.posted, { ...checks, idTokenExpected: true });
  t.is(tokens.claims()!.email, 'ann@example.com');
  const stranger = new Client(r.app.url);
  const none = await follow(
    stranger,
    (await openIDRequest(config, { response_mode: 'form_post', prompt: 'none' })).url,
  );
  if (!('posted' in none)) return t.fail('the error is posted too');
  t.is(new URLSearchParams(await none.posted.text()).get('error'), 'login_required');
});

test('userinfo: only a live, unexpired access token of this server with openid and no resource; the token one way only', async (t) => {
  const r = await openIDRig(t, {
    clients: [
      RP,
      { id: 'worker', secret: 'worker-secret-0123456789abcdef', redirectURIs: [], grantTypes: ['client_credentials'] },
    ],
  });
  await signUpAndConfirm(r, 'ann@example.com');
  const userinfo = `${r.app.url}/auth/oauth2/userinfo`;
  const ask = (token: string, init: RequestInit = {}) =>
    fetch(userinfo, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
  const { tokens } = await codeFlow(r, r.client, { scope: 'openid email' });
  t.is((await ask(tokens.access_token)).status, 200);
  // From another site's page (a single-page relying party): no cookie counts here, so no site is refused.
  const posted = await fetch(userinfo, {
    method: 'POST',
    headers: { origin: 'https://rp.example' },
    body: new URLSearchParams({ access_token: tokens.access_token }),
  });
  t.is(posted.status, 200);
  t.is(posted.headers.get('access-control-allow-origin'), '*');
  const both = await ask(tokens.access_token, { method: 'POST', body: new URLSearchParams({ access_token: 'x' }) });
  t.is(both.status, 400);
  const none = await fetch(userinfo);
  t.is(none.status, 401);
  t.is(none.headers.get('www-authenticate'), 'Bearer');

  const refused = async (token: string, why: string) => {
    const res = await ask(token);
    t.is(res.status, 401, why);
    t.is(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', why);
  };
  // A token bound to an API is that API's.
  const bound = await codeFlow(r, r.client, { scope: 'openid notes:read', resource: RESOURCE });
  await refused(bound.tokens.access_token, 'a token for a resource');
  // A client's own token has no user.
  const worker = await fetch(`${r.app.url}/auth/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('worker:worker-secret-0123456789abcdef').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid' }),
  });
  await refused(((await worker.json()) as { access_token: string }).access_token, 'client credentials');
  await refused(`${tokens.access_token.slice(0, -4)}AAAA`, 'a signature that fails');
  const config = await relyingParty(r);
  const emailOnly = await openIDRequest(config, { scope: 'email' });
  // openid-client wants an id_token from every code of an OpenID issuer: this one is redeemed by hand.
  const back = (await answered(r.client, emailOnly.url)) as URL;
  const redeemed = await fetch(`${r.app.url}/auth/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`rp:${RP.secret}`).toString('base64')}` },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: emailOnly.checks.pkceCodeVerifier,
    }),
  });
  const noOpenID = (await redeemed.json()) as { access_token: string; id_token?: string };
  t.is(noOpenID.id_token, undefined, 'no id_token without openid');
  const insufficient = await ask(noOpenID.access_token);
  t.is(insufficient.status, 403, 'issued without openid');
  // Revoked with its grant, then expired.
  const later = await codeFlow(r, r.client, { scope: 'openid' });
  await oidc.tokenRevocation(later.config, later.tokens.refresh_token!);
  await refused(later.tokens.access_token, 'its grant revoked');
  r.clock.advance(11 * 60_000);
  await refused(tokens.access_token, 'expired');
});

test('an id_token is no session: the app refuses it as a token', async (t) => {
  const r = await openIDRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const { tokens } = await codeFlow(r, r.client);
  t.is((await fetch(`${r.app.url}/auth/user`, { headers: { 'X-JWT': tokens.id_token! } })).status, 401);
  const preflight = await fetch(`${r.app.url}/auth/oauth2/userinfo`, { method: 'OPTIONS' });
  t.is(preflight.status, 204);
  t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /GET, POST/);
});

test('a POSTed request is its GET, an unsigned request object its parameters; a signed one, request_uri, a bad max_age or claims refused', async (t) => {
  const r = await openIDRig(t);
  await signUpAndConfirm(r, 'ann@example.com');
  const config = await relyingParty(r);
  const { url, checks } = await openIDRequest(config);
  // From the client's site, as its form would post it: turned into the GET, which then acts as ever.
  const posted = await r.client.fetch(url.origin + url.pathname, {
    method: 'POST',
    headers: { origin: 'https://rp.example' },
    form: Object.fromEntries(url.searchParams),
  });
  t.is(posted.status, 303);
  const get = new URL(posted.headers.get('location')!);
  t.is(get.href, url.href);
  const tokens = await oidc.authorizationCodeGrant(config, await answered(r.client, get), checks);
  t.truthy(tokens.id_token);
  const refusal = async (params: Record<string, string>) =>
    errorOf(r.client, (await openIDRequest(config, params)).url);
  // An unsigned request object (alg none) is taken as the local server takes it: its parameters win.
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const inObject = await openIDRequest(config);
  const object = { state: 'object-state', nonce: 'object-nonce', scope: 'openid email' };
  inObject.url.searchParams.set('request', `${b64({ alg: 'none' })}.${b64(object)}.`);
  const fromObject = await oidc.authorizationCodeGrant(config, await answered(r.client, inObject.url), {
    ...inObject.checks,
    expectedState: object.state,
    expectedNonce: object.nonce,
  });
  t.is(fromObject.claims()!.email, 'ann@example.com');
  t.is(
    await refusal({ request: `${b64({ alg: 'ES256' })}.${b64(object)}.`, response_type: 'code' }),
    'invalid_request_object',
  );
  t.is(await refusal({ request_uri: 'https://rp.example/r', response_type: 'code' }), 'request_uri_not_supported');
  t.is(await refusal({ max_age: '-1' }), 'invalid_request');
  t.is(await refusal({ claims: '["name"]' }), 'invalid_request');
  const noType = await openIDRequest(config);
  noType.url.searchParams.delete('response_type');
  t.is(await errorOf(r.client, noType.url), 'invalid_request');
});
