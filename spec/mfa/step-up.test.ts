/**
 * Step-up over real HTTP: `auth.middleware.fresh(maxAge)` on the application's own routes refuses a
 * session whose login (`auth_time`) is older than maxAge, a token refresh does not make it fresh, and a
 * second-factor verify with the session (or a new login) does.
 */
import test from 'ava';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { getUserInfo, type AuthKoa } from '../../lib/index.js';
import { Client, decodeJwt } from '../helpers/http.js';
import { appCode, enrolledUser, errorCode, passwordLogin, startMfaApp, verify, wrongCode } from './fixtures.js';

const MINUTE = 60_000;

/** The application's routes: `fresh` alone, and after `auth`. */
function freshRoutes(router: Router, auth: AuthKoa): void {
  const echo = (ctx: Context) => {
    ctx.status = 201;
    ctx.body = { user: getUserInfo(ctx)?.name ?? null };
  };
  router.get('/fresh', auth.middleware.fresh('5m'), echo);
  router.get('/auth-fresh', auth.middleware.auth, auth.middleware.fresh(5 * MINUTE), echo);
}

/** The statuses of both fresh routes, and the code of a refusal. */
async function both(c: Client): Promise<Array<[number, string | undefined]>> {
  const out: Array<[number, string | undefined]> = [];
  for (const path of ['/fresh', '/auth-fresh']) {
    const res = await c.fetch(path, { headers: c.xsrf() });
    out.push([res.status, res.status === 201 ? undefined : await errorCode(res)]);
  }
  return out;
}

const PASS: Array<[number, string | undefined]> = [
  [201, undefined],
  [201, undefined],
];
const STALE: Array<[number, string | undefined]> = [
  [401, 'reauth_required'],
  [401, 'reauth_required'],
];

test('fresh(5m), alone or after auth: a fresh login passes; 6 min on, after a token refresh, 401 reauth_required; a verify with the session makes it fresh', async (t) => {
  // Tokens last 5 min here, so the 6 min old session is refreshed on the way: the refresh keeps auth_time.
  const app = await startMfaApp({ tokenDuration: '5m' }, undefined, freshRoutes);
  t.teardown(() => app.close());
  const { c, otpauthUrl } = await enrolledUser(app); // a password login 30 s ago, TOTP turned on since
  t.deepEqual(await both(c), PASS);
  const before = decodeJwt(c.jar.get('JWT')!);
  t.deepEqual(before.amr, ['pwd']);

  app.clock.advance(6 * MINUTE);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  const refreshed = decodeJwt(c.jar.get('JWT')!);
  t.true(refreshed.exp > before.exp, 'the token was refreshed');
  t.is(refreshed.auth_time, before.auth_time, 'the refresh keeps the login time');
  t.deepEqual(await both(c), STALE);

  const wrong = await verify(c, { code: wrongCode(otpauthUrl, app.clock()) });
  t.is(wrong.status, 403, 'a wrong code steps nothing up');
  t.deepEqual(await both(c), STALE);

  const code = appCode(otpauthUrl, app.clock());
  const forged = await c.fetch('/auth/mfa/verify', { method: 'POST', json: { code } });
  t.is(forged.status, 401, 'a step-up without the XSRF header (a forged request) is refused');
  t.deepEqual(await both(c), STALE);
  const stepped = await verify(c, { code });
  t.is(stepped.status, 200);
  t.like(await stepped.json(), { name: 'alice' });
  const after = decodeJwt(c.jar.get('JWT')!);
  t.is(after.auth_time, Math.floor(app.clock() / 1000), 'auth_time is now');
  t.deepEqual(after.amr, ['pwd', 'otp', 'mfa']);
  t.is(after.jti, before.jti, 'the same session');
  t.deepEqual(await both(c), PASS);
  app.clock.advance(5 * MINUTE + 1000);
  t.deepEqual(await both(c), STALE, 'and stale again 5 min after the step-up');
});

test('fresh() refuses what auth refuses: no session, a pending partial login', async (t) => {
  const app = await startMfaApp({}, undefined, freshRoutes);
  t.teardown(() => app.close());
  t.deepEqual(await both(new Client(app.url)), [
    [401, 'no_token'],
    [401, 'no_token'],
  ]);
  await enrolledUser(app);
  const pending = new Client(app.url);
  t.deepEqual(await (await passwordLogin(pending, 'alice')).json(), {
    mfa_required: true,
    factors: ['totp', 'recovery'],
  });
  t.deepEqual(await both(pending), [
    [401, 'no_token'],
    [401, 'no_token'],
  ]);
});

test("fresh('bad') is a TypeError naming fresh(maxAge)", async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  t.throws(() => app.auth.middleware.fresh('bad'), { instanceOf: TypeError, message: /^fresh\(maxAge\)/ });
  t.throws(() => app.auth.middleware.fresh(-1), { instanceOf: TypeError, message: /^fresh\(maxAge\)/ });
});

test('basic auth (adminPasswd) never passes fresh(): 403 full_login_required, though the password is right', async (t) => {
  const app = await startMfaApp({ adminPasswd: 'admin-secret' }, undefined, freshRoutes);
  t.teardown(() => app.close());
  const basic = (pw: string) => ({ authorization: `Basic ${Buffer.from(`admin:${pw}`).toString('base64')}` });
  t.is(
    (await new Client(app.url).fetch('/private', { headers: basic('admin-secret') })).status,
    201,
    'auth takes the password',
  );
  for (const path of ['/fresh', '/auth-fresh']) {
    const res = await new Client(app.url).fetch(path, { headers: basic('admin-secret') });
    t.is(res.status, 403, path);
    t.is(await errorCode(res), 'full_login_required', path);
  }
  // fresh() does not even check the password; `auth` before it refuses a wrong one first.
  t.is((await new Client(app.url).fetch('/fresh', { headers: basic('wrong') })).status, 403);
  t.is((await new Client(app.url).fetch('/auth-fresh', { headers: basic('wrong') })).status, 401);
});

test('a user without TOTP: a step-up verify is 409 factor_not_enrolled; logging in again makes the session fresh', async (t) => {
  const app = await startMfaApp({}, undefined, freshRoutes);
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await passwordLogin(c, 'bob')).status, 200);
  t.deepEqual(await both(c), PASS);
  app.clock.advance(6 * MINUTE);
  t.deepEqual(await both(c), STALE);
  const stepUp = await verify(c, { code: '123456' });
  t.is(stepUp.status, 409);
  t.is(await errorCode(stepUp), 'factor_not_enrolled');
  t.deepEqual(await both(c), STALE);
  t.is((await passwordLogin(c, 'bob')).status, 200);
  t.is(decodeJwt(c.jar.get('JWT')!).auth_time, Math.floor(app.clock() / 1000));
  t.deepEqual(await both(c), PASS);
});

test('a step-up renews auth_time but not the session: maxSessionAge still counts from the first login (sess_start)', async (t) => {
  const app = await startMfaApp({ tokenDuration: '5m', maxSessionAge: '20m' });
  t.teardown(() => app.close());
  const { c, otpauthUrl } = await enrolledUser(app);
  const login = decodeJwt(c.jar.get('JWT')!);
  app.clock.advance(15 * MINUTE);
  t.is((await verify(c, { code: appCode(otpauthUrl, app.clock()) })).status, 200);
  const stepped = decodeJwt(c.jar.get('JWT')!);
  t.true(stepped.auth_time > login.auth_time, 'the step-up renewed auth_time');
  t.is(stepped.sess_start, login.auth_time, 'the session start is kept');
  // 21 min after the login, 6 after the step-up: the expired token's refresh is refused by maxSessionAge.
  app.clock.advance(6 * MINUTE);
  const res = await c.fetch('/private', { headers: c.xsrf() });
  t.is(res.status, 401);
  t.is(await errorCode(res), 'session_expired');
});
