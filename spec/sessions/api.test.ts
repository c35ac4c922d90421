/**
 * The cap of maxSessionsPerUser over HTTP, the instance's tools (auth.sessions.list/revoke,
 * auth.revokeSessions with `except`), and the options and provider names start-up refuses (issue #34).
 */
import test from 'ava';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { started } from '../helpers/http.js';
import { codeOf, DIRECT, LABEL, listOf, me, MIN, quiet, SECRET, startSessionsApp, TOKEN_MS, UA } from './fixtures.js';

test('maxSessionsPerUser: 3 and a 4th login: the oldest is ended (refused at refresh), the list has the newest 3; other users do not count', async (t) => {
  const app = await startSessionsApp(t, { maxSessionsPerUser: 3 });
  const bob = await app.login('bob');
  const alice = [];
  for (let i = 0; i < 4; i++) {
    app.clock.advance(1000);
    alice.push(await app.login('alice'));
  }
  t.deepEqual(
    (await listOf(alice[3]!.c)).map((s) => s.sid),
    [alice[3]!.sid, alice[2]!.sid, alice[1]!.sid],
  );
  app.clock.advance(TOKEN_MS);
  const refused = await me(alice[0]!.c);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'session_revoked');
  for (const d of [...alice.slice(1), bob]) t.is((await me(d.c)).status, 201);
  t.is((await app.auth.sessions.list(bob.userId)).length, 1);
});

test('maxSessionsPerUser under strictRevocation: the session the cap ends is refused on its next request', async (t) => {
  const app = await startSessionsApp(t, { maxSessionsPerUser: 1, strictRevocation: true });
  const first = await app.login();
  app.clock.advance(1000);
  const second = await app.login();
  t.is((await me(first.c)).status, 401);
  t.is((await me(second.c)).status, 201);
});

test('two logins in the same millisecond: the later one lists first, and the cap ends the earlier one, not the login just made', async (t) => {
  // The clock does not move between these logins: a busy server's Date.now() often does not either.
  const app = await startSessionsApp(t, { maxSessionsPerUser: 2 });
  const [a, b, c] = [await app.login(), await app.login(), await app.login()];
  t.deepEqual(
    (await app.auth.sessions.list(a.userId)).map((r) => r.sid),
    [c.sid, b.sid],
    'the newest two, newest first',
  );
  app.clock.advance(TOKEN_MS + 1000);
  t.is((await me(c.c)).status, 201, 'the login just made goes on');
  t.is(await codeOf(await me(a.c)), 'session_revoked', 'the oldest is the one ended');
});

test('auth.sessions.list: the records with provider, amr, device, the /24 (never the address) and the expiry; newest first', async (t) => {
  const app = await startSessionsApp(t, { cookieDuration: '1h', maxSessionAge: '1d' });
  const t0 = app.clock();
  const d0 = await app.login('alice', UA.edgeWindows);
  app.clock.advance(1000);
  const d1 = await app.login('alice', UA.safariIphone);
  const list = await app.auth.sessions.list(d0.userId);
  t.deepEqual(list, [
    {
      sid: d1.sid,
      provider: 'direct',
      amr: ['pwd'],
      created: t0 + 1000,
      lastSeen: t0 + 1000,
      device: LABEL.safariIphone,
      ip: '127.0.0.0/24',
      expiresAt: t0 + 1000 + 60 * MIN,
    },
    {
      sid: d0.sid,
      provider: 'direct',
      amr: ['pwd'],
      created: t0,
      lastSeen: t0,
      device: LABEL.edgeWindows,
      ip: '127.0.0.0/24',
      expiresAt: t0 + 60 * MIN,
    },
  ]);
  t.deepEqual(await app.auth.sessions.list('direct_nobody'), []);
  // 23.5 h on, refreshed every 50 min: the expiry is then maxSessionAge after the login, not an hour on.
  for (let i = 0; i < 28; i++) {
    app.clock.advance(50 * MIN);
    t.is((await me(d0.c)).status, 201);
  }
  const [kept] = await app.auth.sessions.list(d0.userId);
  t.is(kept!.sid, d0.sid, 'd1, idle for more than an hour, is no longer listed');
  t.is(kept!.expiresAt, t0 + 24 * 60 * MIN);
});

test("auth.sessions.revoke: true for the user's session (then refused at refresh), false again, false for another user's or an unknown sid", async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1] = [await app.login('alice'), await app.login('alice')];
  const bob = await app.login('bob');
  t.true(await app.auth.sessions.revoke(d0.userId, d1.sid));
  t.false(await app.auth.sessions.revoke(d0.userId, d1.sid), 'already ended');
  t.false(await app.auth.sessions.revoke(d0.userId, bob.sid), "bob's session, asked as alice's");
  t.false(await app.auth.sessions.revoke(d0.userId, 'f'.repeat(40)));
  t.deepEqual(
    (await app.auth.sessions.list(d0.userId)).map((r) => r.sid),
    [d0.sid],
  );
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d1.c)), 'session_revoked');
  t.is((await me(d0.c)).status, 201);
  t.is((await me(bob.c)).status, 201);
});

test('auth.revokeSessions(id, { except }) keeps that session only; without except it ends them all; a bad argument is a TypeError', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1, d2] = [await app.login('alice'), await app.login('alice'), await app.login('alice')];
  await app.auth.revokeSessions(d0.userId, { except: d1.sid });
  t.deepEqual(
    (await app.auth.sessions.list(d0.userId)).map((r) => r.sid),
    [d1.sid],
  );
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d0.c)), 'session_revoked');
  t.is(await codeOf(await me(d2.c)), 'session_revoked');
  t.is((await me(d1.c)).status, 201);
  await app.auth.revokeSessions(d0.userId);
  t.deepEqual(await app.auth.sessions.list(d0.userId), []);
  app.clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(d1.c)), 'session_revoked');
  await t.throwsAsync(app.auth.revokeSessions(''), { instanceOf: TypeError });
  await t.throwsAsync(app.auth.revokeSessions(d0.userId, { except: '' }), { instanceOf: TypeError, message: /except/ });
});

test('a provider named "sessions" is a start-up error naming it', async (t) => {
  const err = await t.throwsAsync(
    started({
      secret: SECRET,
      url: 'http://127.0.0.1:1',
      logger: quiet,
      providers: [{ ...DIRECT, name: 'sessions' }],
    } as AuthKoaOptions),
  );
  t.true(err instanceof TypeError);
  t.regex(err!.message, /providers/);
  t.regex(err!.message, /"sessions"/);
  // The same entry under another name starts: the name is what is refused.
  const ok = await started({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: quiet,
    providers: [{ ...DIRECT, name: 'sessionz' }],
  } as AuthKoaOptions);
  await ok.close();
  t.pass();
});

test('maxSessionsPerUser must be a whole number, 1 or more: a TypeError naming it', (t) => {
  for (const bad of [0, -1, 2.5, '3', Number.NaN, Infinity]) {
    const err = t.throws(
      () =>
        authKoa({
          secret: SECRET,
          url: 'http://127.0.0.1:1',
          logger: quiet,
          providers: [DIRECT],
          maxSessionsPerUser: bad,
        } as unknown as AuthKoaOptions),
      { instanceOf: TypeError },
      String(bad),
    );
    t.regex(err!.message, /maxSessionsPerUser/);
  }
  t.throws(
    () =>
      authKoa({
        secret: SECRET,
        url: 'http://127.0.0.1:1',
        logger: quiet,
        providers: [DIRECT],
        endOtherSessionsOnFactorChange: 'no',
      } as unknown as AuthKoaOptions),
    { instanceOf: TypeError, message: /endOtherSessionsOnFactorChange/ },
  );
});
