/**
 * A password alone never manages how a user logs in (issue #45): basic auth, and any token that is not
 * a full login's (one the app minted), is refused 403 `full_login_required` by every route that manages
 * second factors, sessions, passkeys or credentials, whatever way it comes; the token of a full login
 * works by each of its ways. The routes are taken from the app's own `auth.openapi()`, so a new one is
 * checked without being named here.
 */
import test, { type ExecutionContext } from 'ava';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { getUserInfo, type AuthKoa } from '../../lib/index.js';
import { providerUserId } from '../../lib/user.js';
import { BENCH_KEYS } from '../../bench/keys.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import {
  appCode,
  enrolledUser,
  errorCode,
  PASSWORDS,
  passwordLogin,
  startMfaApp,
  verify,
  type MfaApp,
} from '../mfa/fixtures.js';

/** Basic auth's user for a name: the very account the direct login gives, so the attack targets it. */
const basicAuthChecker = (user: string, passwd: string) => ({
  ok: PASSWORDS[user] === passwd,
  user: { id: providerUserId('direct', user), name: user, picture: '' },
});
const basic = (user: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${PASSWORDS[user]}`).toString('base64')}`,
});

/**
 * The operations that serve anonymous or basic-auth callers on purpose: logins and their challenges,
 * logouts, the provider list, the status and user, the key set, avatars, the second-step page. Anything
 * else in the document must refuse basic auth.
 */
const PUBLIC = new Set([
  'get /auth/list',
  'get /auth/user',
  'get /auth/status',
  'get /auth/logout',
  'post /auth/logout',
  'get /auth/direct/login',
  'post /auth/direct/login',
  'get /auth/direct/callback',
  'post /auth/direct/callback',
  'get /auth/direct/logout',
  'post /auth/direct/logout',
  'post /auth/passkey/login',
  'post /auth/passkey/login/options',
  'get /auth/passkey/logout',
  'post /auth/passkey/logout',
  'get /auth/.well-known/jwks.json',
  'get /avatar/{id}',
  'get /auth/mfa/page',
  'get /auth/mfa/client.js',
]);

/** The application's routes behind `fresh()`. */
function freshRoute(router: Router, auth: AuthKoa): void {
  router.post('/settings', auth.middleware.fresh('5m'), (ctx: Context) => {
    ctx.status = 201;
    ctx.body = { user: getUserInfo(ctx)?.name ?? null };
  });
}

/** Direct logins, TOTP, a passkey provider, sessions, signing keys, stored avatars and basic auth by a checker. */
async function richApp(t: ExecutionContext): Promise<MfaApp> {
  const app = await startMfaApp(
    {
      basicAuthChecker,
      signing: { alg: 'EdDSA', key: BENCH_KEYS.EdDSA },
      avatarStore: `lmdb://${tempDir(t)}/avatars`,
      logger: { info: () => {}, warn: () => {}, error: () => {} }, // the passkey kind warns of an IP as rpID
    },
    [
      { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw },
      { kind: 'passkey', rpName: 'full-login tests' },
    ],
    freshRoute,
  );
  t.teardown(() => app.close());
  return app;
}

/** A path of the document with its parameters filled in. */
const concrete = (path: string) => path.replace('{id}', 'AAAA').replace('{sid}', 'a'.repeat(40));

test('every operation of auth.openapi() but a short public list refuses a request that carries only basic auth: 403 full_login_required', async (t) => {
  const app = await richApp(t);
  const doc = await app.auth.openapi();
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method} ${path}`),
  );
  for (const open of PUBLIC) t.true(operations.includes(open), `the public list names a real operation: ${open}`);
  const guarded = operations.filter((op) => !PUBLIC.has(op));
  t.true(guarded.length >= 15, `the management operations: ${guarded.join(', ')}`);
  // The password is right: the app's own routes take it.
  t.is((await new Client(app.url).fetch('/private', { headers: basic('alice') })).status, 201);
  for (const op of guarded) {
    const [method, path] = op.split(' ') as [string, string];
    const res = await new Client(app.url).fetch(concrete(path), {
      method: method.toUpperCase(),
      headers: basic('alice'),
      json: method === 'get' ? undefined : {},
    });
    t.is(res.status, 403, op);
    t.is(await errorCode(res), 'full_login_required', op);
  }
});

/** How a token reaches the server: the cookie with its XSRF header, X-JWT, or ?token=. */
const TRANSPORTS: Record<
  string,
  (token: string) => { client: Client; headers: Record<string, string>; query: string }
> = {
  cookie: (token) => {
    const client = new Client('');
    client.jar.set('JWT', token);
    client.jar.set('XSRF-TOKEN', decodeJwt(token).jti as string);
    return { client, headers: client.xsrf(), query: '' };
  },
  'X-JWT': (token) => ({ client: new Client(''), headers: { 'x-jwt': token }, query: '' }),
  '?token=': (token) => ({ client: new Client(''), headers: {}, query: `token=${encodeURIComponent(token)}` }),
};

/**
 * The management routes and what a full login of a user without TOTP or passkeys gets from each (what
 * passes the gate then answers by the route's own rules).
 */
const MANAGEMENT: Array<[method: string, path: string, status: number]> = [
  ['GET', '/auth/mfa', 200],
  ['POST', '/auth/mfa/totp/setup', 200],
  ['POST', '/auth/mfa/totp/confirm', 400], // no code
  ['POST', '/auth/mfa/recovery-codes', 409], // no TOTP to go with
  ['POST', '/auth/mfa/verify', 409], // a step-up with a factor the user has not
  ['POST', '/auth/mfa/passkey/options', 409], // no passkey to answer with
  ['DELETE', '/auth/mfa/totp', 200],
  ['GET', '/auth/sessions', 200],
  ['DELETE', `/auth/sessions/${'a'.repeat(40)}`, 404],
  ['POST', '/auth/passkey/register/options', 200],
  ['POST', '/auth/passkey/register', 401], // no attestation (passkey_invalid): checked after the session
  ['GET', '/auth/passkey/list', 200],
  ['DELETE', '/auth/passkey/AAAA', 404],
  ['POST', '/settings', 201], // the app's own fresh() route
  ['POST', '/auth/sessions/revoke-others', 200],
];

async function send(
  app: MfaApp,
  how: ReturnType<(typeof TRANSPORTS)[string]>,
  method: string,
  path: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  const url = app.url + path + (how.query ? `?${how.query}` : '');
  return how.client.fetch(url, {
    method,
    headers: { ...how.headers, ...extra },
    json:
      method === 'GET'
        ? undefined
        : path.endsWith('/confirm')
          ? {}
          : path.endsWith('/verify')
            ? { code: '123456' }
            : {},
  });
}

test('by every transport: a token the app minted (no login: no sid, no auth_time) is refused on every management route; a full login token gets through', async (t) => {
  const app = await richApp(t);
  for (const [transport, carry] of Object.entries(TRANSPORTS)) {
    // Each round ends with the full login's "log out others" (revoke-others), which ends at once every other
    // token of bob's issued up to then, a minted one (no iat_ms) up to that whole second: each round mints its
    // own and logs in again a second later on the app's clock.
    app.clock.advance(1000);
    const minted = await app.auth.tokens.create({
      aud: '',
      jti: 'j'.repeat(40),
      user: { id: providerUserId('direct', 'bob'), name: 'bob', picture: '' },
      auth_provider: { name: 'direct' },
    });
    // The minted token is a user for the app's own routes...
    const own = await send(app, carry(minted), 'GET', '/private');
    t.is(own.status, 201, `${transport}: the minted token is a user of auth`);
    // ...but manages nothing.
    for (const [method, path] of MANAGEMENT) {
      const res = await send(app, carry(minted), method, path);
      t.is(res.status, 403, `${transport}: minted ${method} ${path}`);
      t.is(await errorCode(res), 'full_login_required', `${transport}: minted ${method} ${path}`);
    }
    // A full login of the same user, its token carried the same way.
    const login = new Client(app.url);
    t.is((await passwordLogin(login, 'bob')).status, 200);
    const full = login.jar.get('JWT')!;
    t.truthy(decodeJwt(full).sid);
    for (const [method, path, status] of MANAGEMENT) {
      const res = await send(app, carry(full), method, path);
      t.is(
        res.status,
        status,
        `${transport}: full login ${method} ${path}: ${res.status === status ? '' : await res.text()}`,
      );
    }
  }
});

test('basic auth with a token: the route acts for the token alone; a missing, refused or minted token is refused whatever the password', async (t) => {
  const app = await richApp(t);
  const login = new Client(app.url);
  t.is((await passwordLogin(login, 'bob')).status, 200);
  const full = login.jar.get('JWT')!;
  const sid = decodeJwt(full).sid as string;
  // bob's token and alice's password: the session list is bob's.
  const both = await new Client(app.url).fetch('/auth/sessions', { headers: { ...basic('alice'), 'x-jwt': full } });
  t.is(both.status, 200);
  t.deepEqual(
    ((await both.json()) as Array<{ sid: string }>).map((s) => s.sid),
    [sid],
  );
  const forged = full.slice(0, -4) + (full.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  const refused = await new Client(app.url).fetch('/auth/sessions', { headers: { ...basic('bob'), 'x-jwt': forged } });
  t.is(refused.status, 401);
  t.is(await errorCode(refused), 'token_invalid');
  // The cookie without its XSRF header is no token to act for, and the password does not stand in for it.
  const noXsrf = await login.fetch('/auth/mfa/recovery-codes', { method: 'POST', headers: basic('bob') });
  t.is(noXsrf.status, 401);
  t.is(await errorCode(noXsrf), 'xsrf_mismatch');
  const minted = await app.auth.tokens.create({
    aud: '',
    jti: 'k'.repeat(40),
    user: { id: providerUserId('direct', 'bob'), name: 'bob', picture: '' },
    auth_provider: { name: 'direct' },
  });
  const withMinted = await new Client(app.url).fetch('/settings', {
    method: 'POST',
    headers: { ...basic('bob'), 'x-jwt': minted },
  });
  t.is(withMinted.status, 403);
  t.is(await errorCode(withMinted), 'full_login_required');
});

test("the attack of issue #45: with alice's password alone (Basic), no new recovery codes, no new or removed TOTP key, no passkey, no session ended", async (t) => {
  const app = await richApp(t);
  const { c: victim, otpauthUrl, recoveryCodes } = await enrolledUser(app, 'alice');
  const victimSid = decodeJwt(victim.jar.get('JWT')!).sid as string;
  const attacker = () => new Client(app.url);
  const tries: Array<[string, string, unknown]> = [
    ['POST', '/auth/mfa/recovery-codes', undefined],
    ['POST', '/auth/mfa/totp/setup', undefined],
    ['POST', '/auth/mfa/totp/confirm', { code: appCode(otpauthUrl, app.clock()) }],
    ['DELETE', '/auth/mfa/totp', undefined],
    ['GET', '/auth/mfa', undefined],
    ['POST', '/auth/mfa/verify', { recoveryCode: recoveryCodes[0] }],
    ['POST', '/auth/passkey/register/options', undefined],
    ['POST', '/auth/passkey/register', { id: 'AAAA', response: {} }],
    ['GET', '/auth/passkey/list', undefined],
    ['GET', '/auth/sessions', undefined],
    ['DELETE', `/auth/sessions/${victimSid}`, undefined],
    ['POST', '/auth/sessions/revoke-others', undefined],
    ['POST', '/settings', undefined],
  ];
  for (const [method, path, json] of tries) {
    const res = await attacker().fetch(path, { method, headers: basic('alice'), json });
    t.is(res.status, 403, `${method} ${path}`);
    t.is(await errorCode(res), 'full_login_required', `${method} ${path}`);
  }
  // Nothing changed: the victim's session goes on, with its factors; the password still stops at the second step.
  t.is((await victim.fetch('/private', { headers: victim.xsrf() })).status, 201, "the victim's session was not ended");
  const factors = await victim.fetch('/auth/mfa', { headers: victim.xsrf() });
  t.deepEqual(await factors.json(), { totp: true, recoveryCodesLeft: 10, passkeys: 0 });
  const pending = new Client(app.url);
  t.deepEqual(await (await passwordLogin(pending, 'alice')).json(), {
    mfa_required: true,
    factors: ['totp', 'recovery'],
  });
  app.clock.advance(30_000);
  t.is(
    (await verify(pending, { code: appCode(otpauthUrl, app.clock()) })).status,
    200,
    "the victim's own key still finishes a login",
  );
});

test('fresh() refuses basic auth and a minted token (403 full_login_required), and takes a full login of the last 5 minutes', async (t) => {
  const app = await richApp(t);
  const byBasic = await new Client(app.url).fetch('/settings', { method: 'POST', headers: basic('bob') });
  t.is(byBasic.status, 403);
  t.is(await errorCode(byBasic), 'full_login_required');
  const minted = await app.auth.tokens.create({
    aud: '',
    jti: 'm'.repeat(40),
    user: { id: providerUserId('direct', 'bob'), name: 'bob', picture: '' },
    auth_provider: { name: 'direct' },
    auth_time: Math.floor(app.clock() / 1000),
  });
  const byMinted = await new Client(app.url).fetch('/settings', { method: 'POST', headers: { 'x-jwt': minted } });
  t.is(byMinted.status, 403, 'a minted token is no full login, even with a recent auth_time');
  t.is(await errorCode(byMinted), 'full_login_required');
  const c = new Client(app.url);
  t.is((await passwordLogin(c, 'bob')).status, 200);
  t.is((await c.fetch('/settings', { method: 'POST', headers: c.xsrf() })).status, 201);
  app.clock.advance(6 * 60_000);
  const stale = await c.fetch('/settings', { method: 'POST', headers: c.xsrf() });
  t.is(stale.status, 401);
  t.is(await errorCode(stale), 'reauth_required');
});
