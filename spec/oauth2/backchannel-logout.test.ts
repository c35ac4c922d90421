/**
 * Back-Channel Logout at an `oidc` provider: `POST /auth/<name>/backchannel-logout` takes the issuer's logout
 * token, checked like an id_token and for what only a logout token has, and ends the sessions it names — by the
 * provider's `sid`, or every session of its `sub` — through the session list. Anything else is a 400 that ends
 * nothing. The issuer is a scripted stand-in whose key signs both the id_tokens and the logout tokens.
 */
import test, { type ExecutionContext } from 'ava';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as OTPAuth from 'otpauth';
import type { AuthEvent } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { Client, manualClock, serve, startApp } from '../helpers/http.js';
import { options, startLogin } from './fixtures.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** An issuer: discovery, JWKS, and a token endpoint whose id_token carries the `sub` and `sid` the test sets. */
async function fakeIssuer() {
  const key = await generateKeyPair('ES256');
  const other = await generateKeyPair('ES256');
  const script = { nonce: '', sub: 'olga', sid: 'idp-sid-1' as string | undefined };
  const served = await serve(async (req, res) => {
    for await (const _ of req);
    const path = new URL(req.url!, 'http://x').pathname;
    const json = (body: unknown) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/openid-configuration')
      return json({
        issuer: served.url,
        authorization_endpoint: `${served.url}/auth`,
        token_endpoint: `${served.url}/token`,
        jwks_uri: `${served.url}/jwks`,
        id_token_signing_alg_values_supported: ['ES256'],
      });
    if (path === '/jwks') return json({ keys: [{ ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256' }] });
    if (path !== '/token') return void res.writeHead(404).end();
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: served.url, aud: 'shop', sub: script.sub, iat: now, exp: now + 300, nonce: script.nonce };
    const idToken = await new SignJWT({ ...claims, ...(script.sid ? { sid: script.sid } : {}), name: script.sub })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .sign(key.privateKey);
    json({ access_token: 'at', token_type: 'Bearer', id_token: idToken });
  });
  return { ...served, script, key: key.privateKey, other: other.privateKey };
}

async function setup(t: ExecutionContext, extra: Record<string, unknown> = {}, service: Record<string, unknown> = {}) {
  const idp = await fakeIssuer();
  t.teardown(() => idp.close());
  const clock = manualClock(Date.now());
  const entry = { kind: 'oidc', name: 'corp', issuer: idp.url, cid: 'shop', csecret: 'x', userInfo: false, ...extra };
  const app = await startApp(options([entry], { clock, strictRevocation: true, ...service }));
  t.teardown(() => app.close());
  const events: AuthEvent[] = [];
  app.auth.on('session_revoked', (e) => void events.push(e));
  /** A login through the issuer as `sub` in its session `sid`; the browser is signed in to the app. */
  const login = async (sub = 'olga', sid: string | undefined = 'idp-sid-1') => {
    const c = new Client(app.url);
    const authorize = await startLogin(c, 'corp');
    Object.assign(idp.script, { nonce: authorize.searchParams.get('nonce')!, sub, sid });
    const res = await c.fetch(
      `/auth/corp/callback?${new URLSearchParams({ code: 'c', state: authorize.searchParams.get('state')! })}`,
    );
    if (res.status !== 200) throw new Error(`callback answered ${res.status}: ${await res.text()}`);
    return c;
  };
  /** A logout token as the issuer signs it, with `claims` over the good ones (undefined removes one). */
  const token = (claims: Record<string, unknown> = {}, how: { key?: CryptoKey; typ?: string } = {}) => {
    const now = Math.floor(clock() / 1000);
    const all: Record<string, unknown> = {
      ...{ iss: idp.url, aud: 'shop', iat: now, exp: now + 120, jti: `jti-${Math.random()}` },
      ...{ sub: 'olga', sid: 'idp-sid-1', events: { [EVENT]: {} } },
      ...claims,
    };
    for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
    return new SignJWT(all)
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: how.typ ?? 'logout+jwt' })
      .sign(how.key ?? idp.key);
  };
  const post = (logoutToken: string, type = 'application/x-www-form-urlencoded') =>
    fetch(`${app.url}/auth/corp/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: type.includes('json') ? JSON.stringify({ logout_token: logoutToken }) : `logout_token=${logoutToken}`,
    });
  const alive = async (c: Client) => (await c.fetch('/private', { headers: c.xsrf() })).status === 201;
  return { idp, app, clock, login, token, post, alive, events };
}

test('a logout token naming the provider sid ends the sessions of that sid: 200, no-store, session_revoked', async (t) => {
  const { app, login, token, post, alive, events } = await setup(t);
  const first = await login('olga', 'idp-sid-1');
  const second = await login('olga', 'idp-sid-2');
  const userId = (await (await first.fetch('/private', { headers: first.xsrf() })).json()).user.id as string;
  t.is((await app.auth.sessions.list(userId)).length, 2);

  const res = await post(await token({ sid: 'idp-sid-1' }));
  t.is(res.status, 200);
  t.is(await res.text(), '');
  t.is(res.headers.get('cache-control'), 'no-store');
  const refused = await first.fetch('/private', { headers: first.xsrf() });
  t.is(refused.status, 401);
  t.is(((await refused.json()) as { code: string }).code, 'session_revoked');
  t.true(await alive(second), 'the other provider session goes on');
  t.is((await app.auth.sessions.list(userId)).length, 1);
  t.deepEqual(
    events.map((e) => ({ type: e.type, userId: (e as { userId: string }).userId })),
    [{ type: 'session_revoked', userId }],
  );
});

test('a logout token with only sub ends every session of that user that came through the provider', async (t) => {
  const { login, token, post, alive } = await setup(t);
  const a = await login('olga', 'idp-sid-1');
  const b = await login('olga', undefined);
  const other = await login('piet', 'idp-sid-9');
  const res = await post(await token({ sid: undefined, sub: 'olga' }));
  t.is(res.status, 200);
  t.false(await alive(a));
  t.false(await alive(b));
  t.true(await alive(other));
});

test('a logout token whose sid and sub disagree, or that names no live session, is accepted and ends nothing', async (t) => {
  const { login, token, post, alive } = await setup(t);
  const c = await login('olga', 'idp-sid-1');
  t.is((await post(await token({ sid: 'idp-sid-1', sub: 'piet' }))).status, 200);
  t.is((await post(await token({ sid: 'unknown-sid' }))).status, 200);
  t.is((await post(await token({ sid: undefined, sub: 'nobody' }))).status, 200);
  t.true(await alive(c));
});

test('the session is found under its final user: a postAuthHook that changes the id', async (t) => {
  const postAuthHook = (_ctx: unknown, user: { id: string }) => void (user.id = `renamed-${user.id}`);
  const { login, token, post, alive } = await setup(t, {}, { postAuthHook });
  const c = await login();
  t.is((await (await c.fetch('/private', { headers: c.xsrf() })).json()).user.id, 'renamed-corp_' + sha1('olga'));
  t.is((await post(await token())).status, 200);
  t.false(await alive(c));
});

test('a replayed logout token (the same jti) is refused with 400 the second time', async (t) => {
  const { login, token, post, alive } = await setup(t);
  const once = await token({ jti: 'only-once' });
  const c = await login();
  t.is((await post(once)).status, 200);
  t.false(await alive(c));
  const again = await login();
  const res = await post(once);
  t.is(res.status, 400);
  t.deepEqual(await res.json(), { error: 'invalid_request', error_description: 'logout_token was already used (jti)' });
  t.true(await alive(again));
});

/** Logout tokens that must end nothing: each a 400 with the reason. */
const BAD: Array<[string, (s: Awaited<ReturnType<typeof setup>>) => Promise<string>, RegExp]> = [
  [
    'forged: signed with another key',
    (s) => s.token({}, { key: s.idp.other }),
    /ERR_JWS_SIGNATURE_VERIFICATION_FAILED/,
  ],
  ['for another audience', (s) => s.token({ aud: 'someone-else' }), /ERR_JWT_CLAIM_VALIDATION_FAILED: aud/],
  ['from another issuer', (s) => s.token({ iss: 'https://evil.example' }), /ERR_JWT_CLAIM_VALIDATION_FAILED: iss/],
  ['carrying a nonce', (s) => s.token({ nonce: 'n' }), /may not carry a nonce/],
  ['without the events claim', (s) => s.token({ events: undefined }), /no back-channel logout event/],
  ['with the event as no object', (s) => s.token({ events: { [EVENT]: true } }), /no back-channel logout event/],
  ['with another event only', (s) => s.token({ events: { 'urn:other': {} } }), /no back-channel logout event/],
  ['naming neither sub nor sid', (s) => s.token({ sub: undefined, sid: undefined }), /neither sub nor sid/],
  ['without jti', (s) => s.token({ jti: undefined }), /ERR_JWT_CLAIM_VALIDATION_FAILED: jti/],
  ['without iat', (s) => s.token({ iat: undefined }), /ERR_JWT_CLAIM_VALIDATION_FAILED: iat/],
  ['expired', (s) => s.token({ exp: Math.floor(s.clock() / 1000) - 120 }), /ERR_JWT_EXPIRED/],
  [
    'issued ten minutes ago',
    (s) => s.token({ iat: Math.floor(s.clock() / 1000) - 600, exp: undefined }),
    /ERR_JWT_EXPIRED/,
  ],
  ['issued in the future', (s) => s.token({ iat: Math.floor(s.clock() / 1000) + 600 }), /iat/],
  ['an id_token', (s) => s.token({ events: undefined, nonce: 'n' }, { typ: 'JWT' }), /event|nonce/],
  ['no JWT at all', () => Promise.resolve('not.a.jwt'), /invalid logout_token/],
];

for (const [what, make, reason] of BAD)
  test(`a logout token ${what} ends nothing: 400 invalid_request`, async (t) => {
    const s = await setup(t);
    const c = await s.login();
    const res = await s.post(await make(s));
    t.is(res.status, 400);
    t.is(res.headers.get('cache-control'), 'no-store');
    const body = (await res.json()) as { error: string; error_description: string };
    t.is(body.error, 'invalid_request');
    t.regex(body.error_description, reason);
    t.false(/at |\.ts:/.test(body.error_description), 'no stack');
    t.true(await s.alive(c));
    t.deepEqual(s.events, []);
  });

test('no logout_token, or one sent as JSON, is refused with 400; a GET is 405', async (t) => {
  const { login, token, post, alive, app } = await setup(t);
  const c = await login();
  t.is((await post('')).status, 400);
  t.is((await post(await token(), 'application/json')).status, 400);
  t.is((await fetch(`${app.url}/auth/corp/backchannel-logout`)).status, 405);
  t.true(await alive(c));
});

test('backchannelLogout: false turns the route off; a non-boolean is refused at start', async (t) => {
  const { app } = await setup(t, { backchannelLogout: false });
  const res = await fetch(`${app.url}/auth/corp/backchannel-logout`, { method: 'POST' });
  t.is(res.status, 404);
  const doc = (await app.auth.openapi()) as { paths: Record<string, unknown> };
  t.false('/auth/corp/backchannel-logout' in doc.paths);
  await t.throwsAsync(setup(t, { backchannelLogout: 'yes' }), { message: /backchannelLogout must be a boolean/ });
});

test('the route is in auth.openapi(): a form with logout_token, 200 or 400', async (t) => {
  const { app } = await setup(t);
  const doc = (await app.auth.openapi()) as { paths: Record<string, Record<string, any>> };
  const op = doc.paths['/auth/corp/backchannel-logout']!.post;
  t.deepEqual(Object.keys(doc.paths['/auth/corp/backchannel-logout']!), ['post']);
  t.deepEqual(op.requestBody.content['application/x-www-form-urlencoded'].schema.required, ['logout_token']);
  t.truthy(op.responses['200']);
  t.truthy(op.responses['400']);
});

test('a login that passed a second step is found too: its session carries the sid chosen at the callback', async (t) => {
  const { app, clock, idp, login, token, post, alive } = await setup(t, {}, { mfa: { store: 'memory://' } });
  // alice sets TOTP up in a first session.
  const first = await login('olga', 'idp-sid-1');
  const setupRes = await first.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: first.xsrf() });
  const { otpauthUrl } = (await setupRes.json()) as { otpauthUrl: string };
  const code = () => (OTPAuth.URI.parse(otpauthUrl) as OTPAuth.TOTP).generate({ timestamp: clock() });
  const confirm = await first.fetch('/auth/mfa/totp/confirm', {
    method: 'POST',
    headers: first.xsrf(),
    json: { code: code() },
  });
  t.is(confirm.status, 200);
  clock.advance(30_000);
  // The next login through the issuer stops at the second step, and its session starts at the code.
  const c = new Client(app.url);
  const authorize = await startLogin(c, 'corp');
  Object.assign(idp.script, { nonce: authorize.searchParams.get('nonce')!, sub: 'olga', sid: 'idp-sid-2' });
  const state = authorize.searchParams.get('state')!;
  const gated = await c.fetch(`/auth/corp/callback?${new URLSearchParams({ code: 'c', state })}`);
  t.is(gated.status, 303, 'to the second-step page');
  const verified = await c.fetch('/auth/mfa/verify', { method: 'POST', json: { code: code() } });
  t.is(verified.status, 200, await verified.clone().text());
  t.true(await alive(c));
  t.is((await post(await token({ sid: 'idp-sid-2' }))).status, 200);
  t.false(await alive(c));
  t.true(await alive(first), 'the other provider session goes on');
});
