/**
 * The session list's admin API from the main entry: `sessionsAdmin(stateStore, …)` (what `authctl sessions`
 * runs) works on the records and tombstones an app keeps in a shared store, and `auth.features.get('sessions')`
 * is the same API inside the app, telling `session_revoked` as `auth.sessions.revoke` does.
 */
import test from 'ava';
import { sessionsAdmin, type SessionsAdmin } from '../../lib/index.js';
import { manualClock } from '../helpers/http.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { codeOf, LABEL, me, startSessionsApp, TOKEN_MS, UA } from './fixtures.js';

const DAY = 24 * 3600_000;

test("sessionsAdmin() over the app's store lists its logins, ends one (refused at its refresh) and then all of them", async (t) => {
  const store = memoryStateStore();
  const clock = manualClock();
  const app = await startSessionsApp(t, { stateStore: store, clock });
  const a = await app.login('alice', UA.chromeMac);
  clock.advance(1000);
  const b = await app.login('alice', UA.firefoxLinux);
  const admin = sessionsAdmin(store, { cookieDurationMs: 31 * DAY, clock });
  t.deepEqual(
    (await admin.list(a.userId)).map((r) => [r.sid, r.device]),
    [
      [b.sid, LABEL.firefoxLinux],
      [a.sid, LABEL.chromeMac],
    ],
  );
  t.false(await admin.revoke(a.userId, 'no-such-sid'));
  t.true(await admin.revoke(a.userId, a.sid));
  t.deepEqual(
    (await app.auth.sessions.list(a.userId)).map((r) => r.sid),
    [b.sid],
  );
  clock.advance(TOKEN_MS + 1000);
  const refused = await me(a.c);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'session_revoked');
  t.is((await me(b.c)).status, 201);
  await admin.revokeAll(a.userId);
  t.deepEqual(await admin.list(a.userId), []);
  clock.advance(TOKEN_MS + 1000);
  t.is(await codeOf(await me(b.c)), 'session_revoked');
});

test("auth.features.get('sessions') is the same admin API, and ending through it tells session_revoked", async (t) => {
  const app = await startSessionsApp(t);
  const a = await app.login();
  const b = await app.login();
  const told: unknown[] = [];
  app.auth.on('session_revoked', (e) => void told.push({ userId: e.userId, sid: e.sid, keptSid: e.keptSid }));
  const admin = app.auth.features.get<SessionsAdmin>('sessions')!;
  t.is((await admin.list(a.userId)).length, 2);
  t.true(await admin.revoke(a.userId, a.sid));
  await admin.revokeAll(a.userId, { except: b.sid });
  await new Promise((resolve) => setImmediate(resolve)); // listeners run after the emitting code
  t.deepEqual(told, [
    { userId: a.userId, sid: a.sid, keptSid: undefined },
    { userId: a.userId, sid: undefined, keptSid: b.sid },
  ]);
  t.deepEqual(
    (await admin.list(a.userId)).map((r) => r.sid),
    [b.sid],
  );
});

test('sessionsAdmin() refuses options it cannot keep a revocation with', (t) => {
  const store = memoryStateStore();
  t.throws(() => sessionsAdmin(store, { cookieDurationMs: 0 }), {
    instanceOf: TypeError,
    message: /cookieDurationMs must be a positive number/,
  });
  t.throws(() => sessionsAdmin(store, { cookieDurationMs: DAY, tokenDurationMs: Number.NaN }), {
    instanceOf: TypeError,
    message: /tokenDurationMs/,
  });
});
