/**
 * A session ended from another device is refused with 401 `session_revoked` whichever check finds it (the
 * refresh, strictRevocation, an idle timeout passed as well), and so are the browser's later requests,
 * once its session cookie is gone: the JWT cookie then holds a mark that says why, never a token, until a
 * login or a logout replaces it.
 */
import test from 'ava';
import { codeOf, endSession, me, MIN, revokeOthers, startSessionsApp, TOKEN_MS } from './fixtures.js';

test('ended from another device: refused at refresh with session_revoked, and its next requests too (the mark), not no_token', async (t) => {
  const app = await startSessionsApp(t);
  const [a, b] = [await app.login(), await app.login()];
  t.is((await endSession(a.c, b.sid)).status, 204);
  app.clock.advance(TOKEN_MS + 1000);

  const first = await me(b.c);
  t.is(first.status, 401);
  t.is(await codeOf(first), 'session_revoked');
  t.is(b.c.jar.get('JWT'), 'session_revoked', 'the session cookie is replaced by the mark');
  t.is(b.c.jar.get('XSRF-TOKEN'), undefined);
  t.true(b.c.cookie('JWT')!.attrs['httponly'] !== undefined, 'the mark is HttpOnly like the cookie it replaces');

  // The browser now sends no token at all, only the mark: still told why.
  for (const path of ['/private', '/auth/user', '/auth/sessions']) {
    const later = await b.c.fetch(path, { headers: b.c.xsrf() });
    t.is(later.status, 401, path);
    t.is(await codeOf(later), 'session_revoked', path);
  }
  t.is(b.c.jar.get('JWT'), 'session_revoked', 'the mark stays while it is refused');

  // A logout clears it; then the browser is simply not logged in.
  await b.c.fetch('/auth/logout', { method: 'POST' });
  t.is(b.c.jar.get('JWT'), undefined);
  t.is(await codeOf(await me(b.c)), 'no_token');
  t.is((await me(a.c)).status, 201, 'the device that ended it goes on');
});

test('a login replaces the mark: the same browser is logged in again', async (t) => {
  const app = await startSessionsApp(t, { strictRevocation: true });
  const [a, b] = [await app.login(), await app.login()];
  t.is((await endSession(a.c, b.sid)).status, 204);
  // strictRevocation finds it on the very next request, before the token expires: the same code and the mark.
  const refused = await me(b.c);
  t.is(await codeOf(refused), 'session_revoked');
  t.is(b.c.jar.get('JWT'), 'session_revoked');
  t.is(await codeOf(await me(b.c)), 'session_revoked');
  const again = await b.c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'alice-pw' } });
  t.is(again.status, 200);
  t.not(b.c.jar.get('JWT'), 'session_revoked');
  t.is((await me(b.c)).status, 201);
});

test('ended from elsewhere and idle past cookieDuration as well: told session_revoked, the reason that came first', async (t) => {
  const app = await startSessionsApp(t, { cookieDuration: '1h' });
  const [a, b] = [await app.login(), await app.login()];
  app.clock.advance(MIN);
  t.is((await revokeOthers(a.c)).status, 200);
  // The "others" record lasts cookieDuration past the revocation; b's token idled out a minute before that.
  app.clock.advance(60 * MIN - 30_000);
  const refused = await me(b.c);
  t.is(refused.status, 401);
  t.is(await codeOf(refused), 'session_revoked');
});

test('a mark sent with a token in the X-JWT header: the header token decides, the mark is not read', async (t) => {
  const app = await startSessionsApp(t, { strictRevocation: true });
  const [a, b] = [await app.login(), await app.login()];
  const token = a.c.jar.get('JWT')!;
  t.is((await endSession(a.c, b.sid)).status, 204);
  await me(b.c);
  t.is(b.c.jar.get('JWT'), 'session_revoked');
  t.is((await b.c.fetch('/private', { headers: { 'X-JWT': token } })).status, 201);
});
