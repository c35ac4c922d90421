/**
 * The session list over real HTTP (issue #34): three browsers of one user, each with its own User-Agent,
 * list their sessions, end one, end the others, and log out; an ended session is refused at its next
 * refresh (at once under strictRevocation) while the others go on. The clock is moved by hand.
 */
import test from 'ava';
import {
  copyOf,
  codeOf,
  endSession,
  LABEL,
  listOf,
  me,
  MIN,
  revokeOthers,
  startSessionsApp,
  TOKEN_MS,
  UA,
  type SessionsApp,
} from './fixtures.js';

const KEYS = ['created', 'current', 'device', 'lastSeen', 'provider', 'sid'];

/** alice logs in from Chrome on macOS, Firefox on Linux and Safari on iOS, one second apart. */
async function threeBrowsers(app: SessionsApp) {
  const d0 = await app.login('alice', UA.chromeMac);
  app.clock.advance(1000);
  const d1 = await app.login('alice', UA.firefoxLinux);
  app.clock.advance(1000);
  const d2 = await app.login('alice', UA.safariIphone);
  return [d0, d1, d2] as const;
}

test('three browsers of one user: each lists the 3 sessions newest first, itself the current one, with device, provider and ISO times; no ip or amr', async (t) => {
  const app = await startSessionsApp(t);
  const start = app.clock();
  const devices = await threeBrowsers(app);
  t.is(new Set(devices.map((d) => d.sid)).size, 3);
  for (const d of devices) t.regex(d.sid, /^[0-9a-f]{40}$/);
  for (const d of devices) {
    const res = await d.c.fetch('/auth/sessions', { headers: d.c.xsrf() });
    t.is(res.status, 200);
    t.is(res.headers.get('cache-control'), 'no-store');
    const text = await res.text();
    t.false(/127\.0\.0|"ip"|"amr"|pwd|expiresAt/.test(text), text);
    const list = JSON.parse(text) as Array<Record<string, unknown>>;
    t.deepEqual(
      list.map((s) => s.sid),
      [devices[2].sid, devices[1].sid, devices[0].sid],
      'newest first',
    );
    t.deepEqual(
      list.map((s) => s.current),
      devices.map((x) => x.sid === d.sid).reverse(),
      'the asking browser is the current one',
    );
    t.deepEqual(
      list.map((s) => s.device),
      [LABEL.safariIphone, LABEL.firefoxLinux, LABEL.chromeMac],
    );
    for (const [i, s] of list.entries()) {
      t.deepEqual(Object.keys(s).sort(), KEYS);
      t.is(s.provider, 'direct');
      const at = new Date(start + (2 - i) * 1000).toISOString();
      t.is(s.created, at);
      t.is(s.lastSeen, at, 'not refreshed yet: seen last at login');
    }
  }
});

test('lastSeen moves at a refresh only: requests within tokenDuration leave it, the first past it moves it, the next ones do not', async (t) => {
  const app = await startSessionsApp(t);
  const login = app.clock();
  const [d0, d1] = [await app.login('alice', UA.chromeMac), await app.login('alice', UA.firefoxLinux)];
  const seen = async () =>
    Object.fromEntries((await app.auth.sessions.list(d0.userId)).map((r) => [r.sid, r.lastSeen]));
  app.clock.advance(MIN);
  for (let i = 0; i < 3; i++) t.is((await me(d0.c)).status, 201);
  t.deepEqual(await seen(), { [d0.sid]: login, [d1.sid]: login }, 'requests before the token expires');
  app.clock.advance(TOKEN_MS);
  const refreshedAt = app.clock();
  t.is((await me(d0.c)).status, 201);
  t.truthy(d0.c.cookie('JWT')?.value, 'this request refreshed the token');
  t.deepEqual(await seen(), { [d0.sid]: refreshedAt, [d1.sid]: login }, 'moved for the refreshed session only');
  app.clock.advance(MIN);
  t.is((await me(d0.c)).status, 201);
  t.is(d0.c.cookie('JWT'), undefined, 'no refresh this time');
  const listed = await listOf(d0.c);
  t.deepEqual(
    listed.map((s) => [s.sid, s.lastSeen]),
    [
      [d1.sid, new Date(login).toISOString()],
      [d0.sid, new Date(refreshedAt).toISOString()],
    ],
    'the route shows the same, and the request before did not move it',
  );
});

test("DELETE another browser's session: 204; that browser is refused at once, by the revocation channel with no store read (its token cleared); the others go on, past their own refresh too", async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1, d2] = await threeBrowsers(app);
  const res = await endSession(d0.c, d1.sid);
  t.is(res.status, 204);
  t.is(await res.text(), '');
  t.deepEqual(
    (await listOf(d0.c)).map((s) => s.sid),
    [d2.sid, d0.sid],
  );
  // Its token is still fresh: what refuses it is the channel's set in this process, not a refresh.
  const refused = await me(d1.c);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'session_revoked');
  t.is(d1.c.cookie('XSRF-TOKEN')?.attrs['max-age'], '0', 'the XSRF cookie is cleared');
  t.is(d1.c.jar.get('JWT'), 'session_revoked', 'the session cookie holds no token any more, only the mark of why');
  for (const d of [d0, d2]) t.is((await me(d.c)).status, 201, 'the others go on');
  app.clock.advance(TOKEN_MS + 1000);
  for (const d of [d0, d2]) {
    t.is((await me(d.c)).status, 201);
    t.truthy(d.c.cookie('JWT')?.value, 'refreshed');
  }
  t.deepEqual(
    (await listOf(d2.c)).map((s) => s.sid),
    [d2.sid, d0.sid],
  );
});

test('strictRevocation: the ended session is refused on its very next request, the others are not', async (t) => {
  const app = await startSessionsApp(t, { strictRevocation: true });
  const [d0, d1, d2] = await threeBrowsers(app);
  t.is((await me(d1.c)).status, 201);
  t.is((await endSession(d0.c, d1.sid)).status, 204);
  const refused = await me(d1.c);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'session_revoked');
  t.is(d1.c.jar.get('JWT'), 'session_revoked', 'no token left, only the mark');
  t.is((await me(d0.c)).status, 201);
  t.is((await me(d2.c)).status, 201);
});

test('DELETE the current session: 204 with its cookies cleared; a copy of its cookie is refused at refresh; the others go on', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1] = await threeBrowsers(app);
  const stolen = copyOf(d0.c);
  const res = await endSession(d0.c, d0.sid);
  t.is(res.status, 204);
  t.is(d0.c.cookie('JWT')?.attrs['max-age'], '0');
  t.is(d0.c.cookie('XSRF-TOKEN')?.attrs['max-age'], '0');
  t.false(d0.c.jar.has('JWT'));
  t.is((await me(d0.c)).status, 401, 'logged out in this browser');
  t.false(
    (await listOf(d1.c)).some((s) => s.sid === d0.sid),
    'gone from the list',
  );
  app.clock.advance(TOKEN_MS + 1000);
  const replay = await me(stolen);
  t.is(replay.status, 401);
  t.is(await codeOf(replay), 'session_revoked');
  t.is((await me(d1.c)).status, 201);
});

test('POST revoke-others keeps only the caller: the list has 1, the others are refused at once, the caller and later logins go on', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1, d2] = await threeBrowsers(app);
  const res = await revokeOthers(d1.c);
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { ended: 'others', current: d1.sid });
  const list = await listOf(d1.c);
  t.deepEqual(
    list.map((s) => [s.sid, s.current]),
    [[d1.sid, true]],
  );
  t.is(await codeOf(await me(d0.c)), 'session_revoked', 'refused at once, its token still fresh');
  app.clock.advance(1000);
  const later = await app.login('alice', UA.edgeWindows);
  app.clock.advance(TOKEN_MS);
  for (const d of [d0, d2]) {
    const refused = await me(d.c);
    t.is(refused.status, 401);
    t.is(await codeOf(refused), 'session_revoked');
  }
  t.is((await me(d1.c)).status, 201, 'the caller, refreshed');
  t.is((await me(later.c)).status, 201, 'a login after it, refreshed');
  t.deepEqual(
    (await listOf(d1.c)).map((s) => s.sid),
    [later.sid, d1.sid],
  );
});

test('strictRevocation: revoke-others refuses the others on their very next request', async (t) => {
  const app = await startSessionsApp(t, { strictRevocation: true });
  const [d0, d1, d2] = await threeBrowsers(app);
  t.is((await revokeOthers(d2.c)).status, 200);
  for (const d of [d0, d1]) {
    const refused = await me(d.c);
    t.is(refused.status, 401);
    t.is(await codeOf(refused), 'session_revoked');
  }
  t.is((await me(d2.c)).status, 201);
});

test('logout (/auth/logout and /auth/<provider>/logout) removes the entry from the list and ends the token', async (t) => {
  const app = await startSessionsApp(t);
  const [d0, d1, d2] = await threeBrowsers(app);
  const copies = [copyOf(d0.c), copyOf(d2.c)];
  t.is((await d0.c.fetch('/auth/logout')).status, 200);
  t.deepEqual(
    (await listOf(d1.c)).map((s) => s.sid),
    [d2.sid, d1.sid],
  );
  t.is((await d2.c.fetch('/auth/direct/logout')).status, 200);
  t.deepEqual(
    (await app.auth.sessions.list(d1.userId)).map((r) => r.sid),
    [d1.sid],
  );
  app.clock.advance(TOKEN_MS + 1000);
  for (const copy of copies) {
    const replay = await me(copy);
    t.is(replay.status, 401);
    t.is(await codeOf(replay), 'session_revoked');
  }
  t.is((await me(d1.c)).status, 201);
});
