/** The rbac refusal says what is wrong: the user's role, or that the user has none (the code stays role_denied). */
import test from 'ava';
import { Client, startApp } from '../helpers/http.js';
import { baseOptions } from './fixtures.js';

test('rbac refuses a user without a role with "user <name> has no role", one with another role naming it', async (t) => {
  const roles: Record<string, string> = { rd: 'reader' };
  const app = await startApp(
    baseOptions({
      claimsUpdater: (c) =>
        c.user && roles[c.user.name] ? { ...c, user: { ...c.user, role: roles[c.user.name] } } : c,
    }),
  );
  t.teardown(() => app.close());
  for (const [user, error] of [
    ['plain', 'user plain has no role'],
    ['rd', 'user rd role reader not in allowed roles'],
  ]) {
    const c = new Client(app.url);
    const login = await c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: 'password' } });
    t.is(login.status, 200);
    const res = await c.fetch('/editors', { headers: c.xsrf() });
    t.is(res.status, 403);
    t.deepEqual(await res.json(), { error, code: 'role_denied' });
  }
});
