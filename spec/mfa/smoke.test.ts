import test from 'ava';
import { Client, decodeJwt } from '../helpers/http.js';
import { appCode, enrolledUser, passwordLogin, startMfaApp } from './fixtures.js';

test('smoke: enrol, log in again, second step', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  const first = await passwordLogin(c, 'alice');
  t.is(first.status, 200);
  t.deepEqual(await first.json(), { mfa_required: true, factors: ['totp', 'recovery'] });
  t.is((await c.fetch('/auth/user')).status, 401);
  const second = await c.fetch('/auth/mfa/verify', { method: 'POST', json: { code: appCode(otpauthUrl, app.clock()) } });
  t.is(second.status, 200, await second.clone().text());
  const jwt = decodeJwt(c.jar.get('JWT')!);
  t.deepEqual(jwt.amr, ['pwd', 'otp', 'mfa']);
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});
