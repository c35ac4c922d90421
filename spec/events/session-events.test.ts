/**
 * Issue #37: the events of a session's life after its login, each fired once with its documented
 * fields, over real HTTP with the session tests' app (a `direct` provider, a clock moved by hand):
 * logout, refresh, session_revoked, lockout, passkey_added / passkey_removed, mfa_changed, mfa_failed.
 */
import test from 'ava';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { enrollTotp, errorCode, passwordLogin, startMfaApp, verify, wrongCode } from '../mfa/fixtures.js';
import {
  Browser,
  DIRECT,
  TOKEN_MS,
  endSession,
  listOf,
  me,
  registerPasskey,
  revokeOthers,
  startSessionsApp,
} from '../sessions/fixtures.js';
import { LOOPBACK, UA, record, refusalOf, sidOf } from './fixtures.js';
import { quiet } from './kinds.js';

test('logout: /auth/logout and a provider logout (/auth/direct/logout) each fire one logout with the user, provider and the sid that ended', async (t) => {
  const app = await startSessionsApp(t);
  const [first, second] = [await app.login('alice', UA), await app.login('alice', UA)];
  const events = record(app.auth);
  for (const [device, path] of [
    [first, '/auth/logout'],
    [second, '/auth/direct/logout'],
  ] as const) {
    events.clear();
    const res = await device.c.fetch(path, { headers: device.c.xsrf() });
    t.is(res.status, 200, path);
    t.false(device.c.jar.has('JWT'), `${path} cleared the cookie`);
    await events.until('logout');
    t.deepEqual(
      events.all,
      [{ type: 'logout', time: app.clock(), userId: device.userId, provider: 'direct', sid: device.sid }],
      path,
    );
  }
});

test('refresh: an expired token (by the injected clock) is refreshed once for 5 parallel requests carrying it: one refresh event with the user, provider and sid', async (t) => {
  const app = await startSessionsApp(t);
  const device = await app.login('alice', UA);
  const expired = device.c.jar.get('JWT');
  const events = record(app.auth);
  app.clock.advance(TOKEN_MS + 1000);
  const answers = await Promise.all(Array.from({ length: 5 }, () => me(device.c)));
  t.deepEqual(
    answers.map((r) => r.status),
    [201, 201, 201, 201, 201],
  );
  t.not(device.c.jar.get('JWT'), expired, 'a new token was issued');
  await events.until('refresh');
  t.deepEqual(events.all, [
    { type: 'refresh', time: app.clock(), userId: device.userId, provider: 'direct', sid: device.sid },
  ]);
  t.is(sidOf(device.c), device.sid, 'the refreshed token keeps its session');
});

test('session_revoked: DELETE /auth/sessions/<sid> names the sid; revoke-others keeps the caller (keptSid); auth.revokeSessions(id) ends all (neither)', async (t) => {
  const app = await startSessionsApp(t);
  const [keeper, ended] = [await app.login('alice', UA), await app.login('alice', UA)];
  await app.login('alice', UA);
  const events = record(app.auth);
  t.is((await endSession(keeper.c, ended.sid)).status, 204);
  await events.until('session_revoked');
  t.deepEqual(events.all, [{ type: 'session_revoked', time: app.clock(), userId: keeper.userId, sid: ended.sid }]);

  events.clear();
  t.is((await revokeOthers(keeper.c)).status, 200);
  await events.until('session_revoked');
  t.deepEqual(events.all, [{ type: 'session_revoked', time: app.clock(), userId: keeper.userId, keptSid: keeper.sid }]);
  t.deepEqual(
    (await listOf(keeper.c)).map((s) => s.sid),
    [keeper.sid],
    'the others left the list',
  );

  events.clear();
  await app.auth.revokeSessions(keeper.userId);
  await events.until('session_revoked');
  t.deepEqual(events.all, [{ type: 'session_revoked', time: app.clock(), userId: keeper.userId }]);
});

test('lockout: the 5th wrong password locks the pair out: one lockout (scope the provider name, key pair:alice@127.0.0.1, until ahead by the injected clock); the refused 6th locks nothing more', async (t) => {
  const app = await startSessionsApp(t);
  const c = new Browser(app.url, UA);
  const events = record(app.auth);
  const wrong = () => c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'guess' } });
  for (let i = 0; i < 5; i++) t.is((await wrong()).status, 403);
  await events.until('lockout');
  await events.until('login_failed', 5);
  t.deepEqual(events.of('lockout'), [
    { type: 'lockout', time: app.clock(), scope: 'direct', key: `pair:alice@${LOOPBACK}`, until: app.clock() + 60_000 },
  ]);
  t.true(events.of('lockout')[0]!.until > app.clock());
  t.is(events.all.length, 6, 'five refusals and the lock-out');

  events.clear();
  const locked = await refusalOf(await wrong());
  await events.until('login_failed');
  t.is(locked.status, 429);
  t.like(events.all, [
    { type: 'login_failed', provider: 'direct', reason: locked.code, status: 429, userName: 'alice' },
  ]);
  t.is(events.all.length, 1, 'no lock-out again while locked');
});

test('passkey_added and passkey_removed: the user, the provider and the session that did it (then the other sessions end: session_revoked keeping it)', async (t) => {
  const app = await startSessionsApp(t, {
    providers: [DIRECT, { kind: 'passkey', rpName: 'events tests' }],
  } as Partial<AuthKoaOptions>);
  const device = await app.login('alice', UA);
  const events = record(app.auth);
  const id = await registerPasskey(device.c);
  await events.until('session_revoked');
  const changed = (type: string) => [
    { type, time: app.clock(), userId: device.userId, provider: 'passkey', sid: device.sid },
    { type: 'session_revoked', time: app.clock(), userId: device.userId, keptSid: device.sid },
  ];
  t.deepEqual(events.all, changed('passkey_added'));

  events.clear();
  t.is((await device.c.fetch(`/auth/passkey/${id}`, { method: 'DELETE', headers: device.c.xsrf() })).status, 204);
  await events.until('session_revoked');
  t.deepEqual(events.all, changed('passkey_removed'));
});

test('mfa_changed (totp_enabled, recovery_codes_generated, totp_disabled) with the user and sid; mfa_failed for a wrong code with the provider, reason, ip, User-Agent', async (t) => {
  const app = await startMfaApp({ logger: quiet });
  t.teardown(() => app.close());
  const c = new Browser(app.url, UA);
  t.is((await passwordLogin(c, 'alice')).status, 200);
  const [userId, sid] = [
    ((await (await c.fetch('/auth/user', { headers: c.xsrf() })).json()) as { id: string }).id,
    sidOf(c),
  ];
  const events = record(app.auth);
  const changed = (change: string) => ({ type: 'mfa_changed', time: app.clock(), userId, change, sid });
  const othersEnded = () => ({ type: 'session_revoked', time: app.clock(), userId, keptSid: sid });

  const { otpauthUrl } = await enrollTotp(app, c);
  await events.until('session_revoked');
  // enrollTotp moves the clock a step on after the confirm.
  t.deepEqual(events.all, [
    { ...changed('totp_enabled'), time: app.clock() - 30_000 },
    { ...othersEnded(), time: app.clock() - 30_000 },
  ]);

  events.clear();
  t.is((await c.fetch('/auth/mfa/recovery-codes', { method: 'POST', headers: c.xsrf() })).status, 200);
  await events.until('mfa_changed');
  t.deepEqual(events.all, [changed('recovery_codes_generated')]);

  events.clear();
  const pending = new Browser(app.url, UA);
  await passwordLogin(pending, 'alice');
  const refused = await verify(pending, { code: wrongCode(otpauthUrl, app.clock()) });
  t.is(refused.status, 403);
  t.is(await errorCode(refused), 'invalid_code');
  await events.until('mfa_failed');
  t.deepEqual(events.all, [
    {
      type: 'mfa_failed',
      time: app.clock(),
      userId,
      provider: 'direct',
      reason: 'invalid_code',
      ip: LOOPBACK,
      userAgent: UA,
    },
  ]);

  events.clear();
  t.is((await c.fetch('/auth/mfa/totp', { method: 'DELETE', headers: c.xsrf() })).status, 200);
  await events.until('session_revoked');
  t.deepEqual(events.all, [changed('totp_disabled'), othersEnded()]);
  t.is((await passwordLogin(new Client(app.url), 'alice')).status, 200);
});
