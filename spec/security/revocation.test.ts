/**
 * Ending stateless sessions server-side, refused at once on every request (the revocation channel) and at the
 * refresh (the store): revokeSessions() (to the millisecond: a login in the same second, after it, survives),
 * logout that ends the token (and says so when the state store is down), the idle timeout (a cookie older
 * than cookieDuration is not refreshed, whatever the client kept). Clocks are injected, and stores the tests
 * build share them.
 */
import test, { type ExecutionContext } from 'ava';
import type { StateStore } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { Client, manualClock, startApp } from '../helpers/http.js';

const SECRET = 'revocation-test-secret-0123456789abcdef';
const MIN = 60_000;

async function rig(t: ExecutionContext, extra: Record<string, unknown> = {}, clock = manualClock()) {
  const app = await startApp({
    secret: SECRET,
    clock,
    providers: [{ kind: 'direct', name: 'local', checker: (_u: string, p: string) => p === 'pw' }],
    ...extra,
  });
  t.teardown(() => app.close());
  const login = async (user = 'alice') => {
    const c = new Client(app.url);
    const res = await c.fetch('/auth/local/login', { method: 'POST', form: { user, passwd: 'pw' } });
    return { c, id: ((await res.json()) as { id: string }).id };
  };
  /** A second browser holding a copy of `c`'s cookies (a stolen or replayed cookie). */
  const copyOf = (c: Client) => {
    const other = new Client(app.url);
    for (const [k, v] of c.jar) other.jar.set(k, v);
    return other;
  };
  const me = (c: Client) => c.fetch('/private', { headers: c.xsrf() });
  const code = async (res: Response) => ((await res.json()) as { code: string }).code;
  return { app, clock, login, copyOf, me, code };
}

/** A memory state store (on the test's clock) whose reads and writes fail while `down` is set. */
function failingStore(clock: () => number) {
  const inner = memoryStateStore({ clock });
  const fail = () => Promise.reject(new Error('store down'));
  const ctl = { down: false };
  const store: StateStore = {
    ...inner,
    get: (...a) => (ctl.down ? fail() : inner.get(...a)),
    create: (...a) => (ctl.down ? fail() : inner.create(...a)),
    replace: (...a) => (ctl.down ? fail() : inner.replace(...a)),
    take: (...a) => inner.take(...a),
    remove: (...a) => inner.remove(...a),
    sweep: () => inner.sweep(),
    markUsed: (...a) => inner.markUsed(...a),
    close: () => inner.close(),
  };
  return { store, ctl };
}

test('revokeSessions: a live cookie is refused at once, its token cleared (the cookie holds the mark of why), and a copy at its refresh; a new login works', async (t) => {
  const r = await rig(t);
  const { c, id } = await r.login();
  const copy = r.copyOf(c);
  const bob = await r.login('bob');
  await r.app.auth.revokeSessions(id);
  // The revocation channel (in-process for the memory store) refuses the token before it needs refreshing.
  const refused = await r.me(c);
  t.is(refused.status, 401, 'refused at once: the token has not expired, no refresh was due');
  t.is(await r.code(refused), 'session_revoked');
  t.is(c.jar.get('JWT'), 'session_revoked', 'no token left, only the mark');
  t.is((await r.me(bob.c)).status, 201, 'other users are not touched');
  r.clock.advance(16 * MIN);
  const atRefresh = await r.me(copy);
  t.is(atRefresh.status, 401, 'a copy of the cookie is refused at its refresh too (the store)');
  t.is(await r.code(atRefresh), 'session_revoked');
  t.is((await r.me(bob.c)).status, 201, 'other users are not touched, through their refresh');
  r.clock.advance(1000);
  const again = await r.login();
  t.is((await r.me(again.c)).status, 201);
  r.clock.advance(16 * MIN);
  t.is((await r.me(again.c)).status, 201, 'and its refresh goes through');
});

test('strictRevocation: refused on the very next request, header tokens included', async (t) => {
  const r = await rig(t, { strictRevocation: true });
  const { c, id } = await r.login();
  const jwt = c.jar.get('JWT')!;
  await r.app.auth.revokeSessions(id);
  const res = await r.me(c);
  t.is(res.status, 401);
  t.is(await r.code(res), 'session_revoked');
  const header = await new Client(r.app.url).fetch('/private', { headers: { 'X-JWT': jwt } });
  t.is(header.status, 401);
});

test('logout ends the token: a copy of the cookie is refused at once, X-JWT too, and still at its refresh (and the same with strictRevocation)', async (t) => {
  const r = await rig(t);
  const { c } = await r.login();
  const jwtCopy = c.jar.get('JWT')!;
  const stolen = r.copyOf(c);
  const later = r.copyOf(c);
  t.is((await c.fetch('/auth/logout')).status, 200);
  const refused = await r.me(stolen);
  t.is(refused.status, 401, 'the cookie copy, at once: no refresh was due');
  t.is(await r.code(refused), 'session_revoked');
  t.is(
    (await new Client(r.app.url).fetch('/private', { headers: { 'X-JWT': jwtCopy } })).status,
    401,
    'the X-JWT copy, at once',
  );
  r.clock.advance(16 * MIN);
  const atRefresh = await r.me(later);
  t.is(atRefresh.status, 401, 'a copy kept past the token’s life, at its refresh (the store)');
  t.is(await r.code(atRefresh), 'session_revoked');

  const strict = await rig(t, { strictRevocation: true });
  const s = await strict.login();
  const jwt = s.c.jar.get('JWT')!;
  const copy = strict.copyOf(s.c);
  await s.c.fetch('/auth/local/logout');
  t.is((await strict.me(copy)).status, 401, 'the cookie copy, at once');
  t.is(
    (await new Client(strict.app.url).fetch('/private', { headers: { 'X-JWT': jwt } })).status,
    401,
    'the X-JWT copy',
  );
});

test('idle timeout: a cookie replayed after cookieDuration is refused, while a session in use goes on past it', async (t) => {
  const r = await rig(t, { cookieDuration: '1h' });
  const { c } = await r.login();
  const replay = r.copyOf(c);
  r.clock.advance(30 * MIN);
  t.is((await r.me(c)).status, 201, 'refreshed at 30 min');
  r.clock.advance(50 * MIN);
  t.is((await r.me(c)).status, 201, 'refreshed at 80 min: 50 min after its last refresh');
  const refused = await r.me(replay);
  t.is(refused.status, 401, 'the copy taken at login is 80 min old');
  t.is(await r.code(refused), 'session_expired');
  r.clock.advance(400 * 24 * 60 * MIN);
  t.is((await r.me(c)).status, 401, 'a year later, no refresh');
});

test('a state store that is away at refresh answers 503 and keeps the cookies', async (t) => {
  const clock = manualClock();
  const { store, ctl } = failingStore(clock);
  const r = await rig(t, { stateStore: store }, clock);
  const { c } = await r.login();
  r.clock.advance(16 * MIN);
  ctl.down = true;
  const res = await r.me(c);
  t.is(res.status, 503);
  t.is(await r.code(res), 'state_store_unavailable');
  t.true(c.jar.has('JWT'), 'not logged out by an outage');
  ctl.down = false;
  t.is((await r.me(c)).status, 201);
});

test('a revocation and a login in the same second: the login after it survives, the token before it does not', async (t) => {
  // manualClock starts on a whole second: every step below stays inside that one second.
  const r = await rig(t, { strictRevocation: true });
  const before = await r.login();
  r.clock.advance(200);
  await r.app.auth.revokeSessions(before.id);
  r.clock.advance(200);
  const after = await r.login();
  t.is(after.id, before.id, 'the same user');
  t.is((await r.me(after.c)).status, 201, 'logged in after the revocation: kept');
  const refused = await r.me(before.c);
  t.is(refused.status, 401, 'issued before the revocation, in the same second: refused');
  t.is(await r.code(refused), 'session_revoked');
  // The same at refresh time, without strictRevocation.
  const lazy = await rig(t);
  const old = await lazy.login();
  lazy.clock.advance(300);
  await lazy.app.auth.revokeSessions(old.id);
  lazy.clock.advance(300);
  const fresh = await lazy.login();
  lazy.clock.advance(16 * MIN);
  t.is((await lazy.me(fresh.c)).status, 201, 'refreshed');
  t.is((await lazy.me(old.c)).status, 401);
});

test('strictRevocation: a logout while the state store is down answers 503 state_store_unavailable, clears the cookies and reports the error', async (t) => {
  const clock = manualClock();
  const { store, ctl } = failingStore(clock);
  const r = await rig(t, { strictRevocation: true, stateStore: store }, clock);
  const emitted: unknown[] = [];
  r.app.app.on('error', (err: unknown) => emitted.push(err));
  for (const path of ['/auth/logout', '/auth/local/logout']) {
    const { c } = await r.login();
    const copy = r.copyOf(c);
    ctl.down = true;
    const res = await c.fetch(path, { headers: c.xsrf() });
    ctl.down = false;
    t.is(res.status, 503, path);
    t.regex(res.headers.get('content-type')!, /^application\/json/);
    t.is(await r.code(res), 'state_store_unavailable');
    t.false(c.jar.has('JWT'), 'the user asked to leave this browser: its cookies go');
    t.false(c.jar.has('XSRF-TOKEN'));
    // What the 503 says: the session was not ended, a copy of the token still works.
    t.is((await r.me(copy)).status, 201);
  }
  t.is(emitted.length, 2);
  t.regex((emitted[0] as Error).message, /store down/);
});

test('without strictRevocation, a logout while the state store is down answers 200 and clears the cookies, and reports the error', async (t) => {
  const clock = manualClock();
  const { store, ctl } = failingStore(clock);
  const r = await rig(t, { stateStore: store }, clock);
  const emitted: unknown[] = [];
  r.app.app.on('error', (err: unknown) => emitted.push(err));
  const { c } = await r.login();
  ctl.down = true;
  const res = await c.fetch('/auth/logout');
  ctl.down = false;
  t.is(res.status, 200);
  t.false(c.jar.has('JWT'));
  t.is(emitted.length, 1);
});
