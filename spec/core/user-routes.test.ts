/**
 * /auth/user and /auth/status follow the route middleware's rules (validator, refresh, maxSessionAge),
 * and every answer that carries a token or a user says `Cache-Control: no-store`.
 */
import test from 'ava';
import { Client, manualClock, startApp } from '../helpers/http.js';
import { baseOptions } from './fixtures.js';

const LOGIN = '/auth/direct/login?user=dev_direct&passwd=password';

test('a user the validator blocks is not reported by /auth/user or /auth/status', async (t) => {
  const app = await startApp(baseOptions({ validator: (_token, claims) => claims.user?.name !== 'dev_direct' }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch(LOGIN)).status, 200);
  const xsrf = c.xsrf();
  const user = await c.fetch('/auth/user', { headers: xsrf });
  t.is(user.status, 401);
  t.is(((await user.json()) as { code: string }).code, 'user_blocked');
  t.deepEqual(await (await c.fetch('/auth/status', { headers: xsrf })).json(), { status: 'not logged in' });
});

test('an expired cookie token is refreshed by /auth/user as by `auth`, and refused past maxSessionAge', async (t) => {
  const clock = manualClock();
  const app = await startApp(baseOptions({ clock, tokenDuration: '5m', maxSessionAge: '1h' }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch(LOGIN);
  const first = c.jar.get('JWT');
  clock.advance(10 * 60_000);
  const refreshed = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(refreshed.status, 200);
  t.not(c.jar.get('JWT'), first, 'a new token was issued');
  t.is(refreshed.headers.get('cache-control'), 'no-store');
  clock.advance(2 * 60 * 60_000);
  const expired = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(expired.status, 401);
  t.is(((await expired.json()) as { code: string }).code, 'session_expired');
  t.deepEqual(await (await c.fetch('/auth/status', { headers: c.xsrf() })).json(), { status: 'not logged in' });
});

test('login answers, /auth/user, /auth/status and logout say Cache-Control: no-store', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await c.fetch(LOGIN);
  t.is(login.headers.get('cache-control'), 'no-store', 'login');
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).headers.get('cache-control'), 'no-store', '/auth/user');
  t.is((await c.fetch('/auth/status')).headers.get('cache-control'), 'no-store', '/auth/status');
  t.is((await c.fetch('/auth/logout')).headers.get('cache-control'), 'no-store', 'logout');
});
