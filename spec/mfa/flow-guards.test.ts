/**
 * What guards the second step over real HTTP: the failed-code throttle, a burst of parallel verifies,
 * cross-site posts, bad input (never a 5xx), start-up errors of the `mfa` option, and what the factor
 * store holds at rest. The direct provider is the first factor; the app's clock is moved by hand.
 */
import test from 'ava';
import * as OTPAuth from 'otpauth';
import { join } from 'node:path';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, started } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import {
  appCode,
  enrolledUser,
  errorCode,
  passwordLogin,
  PASSWORDS,
  SECRET,
  startMfaApp,
  verify,
  wrongCode,
  type MfaApp,
} from './fixtures.js';

/** Five wrong codes for the client's pending login: each refused 403 invalid_code. */
async function fiveWrong(t: import('ava').ExecutionContext, app: MfaApp, c: Client, otpauthUrl: string): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const res = await verify(c, { code: wrongCode(otpauthUrl, app.clock()) });
    t.is(res.status, 403, `wrong code ${i + 1}`);
    t.is(await errorCode(res), 'invalid_code');
  }
}

test('5 wrong codes: the 6th attempt, even with the right code, is 429 rate_limited with Retry-After; after the lock-out the right code works', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  await fiveWrong(t, app, c, otpauthUrl);
  const locked = await verify(c, { code: appCode(otpauthUrl, app.clock()) });
  t.is(locked.status, 429);
  t.is(await errorCode(locked), 'rate_limited');
  const retryAfter = Number(locked.headers.get('retry-after'));
  t.true(retryAfter > 0, 'Retry-After in seconds');
  app.clock.advance(retryAfter * 1000 - 1000);
  t.is(
    (await verify(c, { code: appCode(otpauthUrl, app.clock()) })).status,
    429,
    'still locked a second before the end',
  );
  app.clock.advance(1000);
  t.is(
    (await verify(c, { code: appCode(otpauthUrl, app.clock()) })).status,
    200,
    'the right code once the lock-out is over',
  );
});

test("the failed-code throttle is per user: bob is not locked out by alice's failures", async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const alice = await enrolledUser(app, 'alice');
  const bob = await enrolledUser(app, 'bob');
  const a = new Client(app.url);
  await passwordLogin(a, 'alice');
  await fiveWrong(t, app, a, alice.otpauthUrl);
  t.is((await verify(a, { code: appCode(alice.otpauthUrl, app.clock()) })).status, 429, 'alice is locked out');
  const b = new Client(app.url);
  await passwordLogin(b, 'bob');
  t.is(
    (await verify(b, { code: appCode(bob.otpauthUrl, app.clock()) })).status,
    200,
    'bob, from the same address, is not',
  );
});

test('with loginThrottle: false, codes are still throttled (six digits would fall to guessing without a limit)', async (t) => {
  const app = await startMfaApp({ loginThrottle: false });
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  for (let i = 0; i < 7; i++)
    t.is((await passwordLogin(c, 'alice', { passwd: 'wrong' })).status, 403, 'passwords are not throttled');
  await passwordLogin(c, 'alice');
  await fiveWrong(t, app, c, otpauthUrl);
  const locked = await verify(c, { code: appCode(otpauthUrl, app.clock()) });
  t.is(locked.status, 429);
  t.truthy(locked.headers.get('retry-after'));
});

test('20 parallel verifies of one valid code for one pending login: exactly one 200', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const code = appCode(otpauthUrl, app.clock());
  const answers = await Promise.all(Array.from({ length: 20 }, () => verify(c, { code })));
  const statuses = answers.map((r) => r.status);
  t.is(statuses.filter((s) => s === 200).length, 1, `statuses: ${statuses.join(',')}`);
  t.true(
    statuses.every((s) => s === 200 || s === 401 || s === 403 || s === 429),
    `statuses: ${statuses.join(',')}`,
  );
});

test('cross-site: POST /auth/mfa/verify with a foreign Origin, or Sec-Fetch-Site: cross-site, is 403 origin_mismatch', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const code = appCode(otpauthUrl, app.clock());
  const foreign: Array<Record<string, string>> = [
    { Origin: 'https://evil.example' },
    { 'Sec-Fetch-Site': 'cross-site' },
    { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  ];
  for (const headers of foreign) {
    const res = await verify(c, { code }, headers);
    t.is(res.status, 403, JSON.stringify(headers));
    t.is(await errorCode(res), 'origin_mismatch');
  }
  t.false(c.jar.has('JWT'));
  t.is(
    (await verify(c, { code }, { Origin: app.url, 'Sec-Fetch-Site': 'same-origin' })).status,
    200,
    'the same request from the site itself',
  );
});

test('bad input to /auth/mfa is answered 4xx JSON, never 5xx', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const post = (body: string, type = 'application/json') =>
    c.fetch('/auth/mfa/verify', { method: 'POST', headers: { 'content-type': type }, body });
  const cases: Array<[string, Promise<Response>, number, string]> = [
    ['an array', post('["123456"]'), 400, 'bad_request'],
    ['a number', post('123456'), 400, 'bad_request'],
    ['not JSON', post('{"code":'), 400, 'bad_request'],
    ['code an object', post('{"code":{"x":"123456"}}'), 400, 'missing_code'],
    ['1 MB', post(JSON.stringify({ code: '1'.repeat(1024 * 1024) })), 413, 'body_too_large'],
    ['7 digits', post(JSON.stringify({ code: appCode(otpauthUrl, app.clock()) + '1' })), 403, 'invalid_code'],
    ['letters', post('{"code":"abcdef"}'), 403, 'invalid_code'],
  ];
  for (const [what, answer, status, code] of cases) {
    const res = await answer;
    t.is(res.status, status, what);
    t.is(await errorCode(res), code, what);
  }
  const garbage = new Client(app.url);
  garbage.jar.set('JWT-MFA', 'not.a.token');
  const forged = await verify(garbage, { code: appCode(otpauthUrl, app.clock()) });
  t.is(forged.status, 401);
  t.is(await errorCode(forged), 'mfa_session_invalid');
  const wrongMethod = await c.fetch('/auth/mfa/verify');
  t.is(wrongMethod.status, 405, 'GET on a POST route');
  t.is(await errorCode(wrongMethod), 'method_not_allowed');
  t.is(
    (await verify(c, { code: appCode(otpauthUrl, app.clock()) })).status,
    200,
    'the pending login is still there for the right code',
  );
});

test('an unknown route under /auth/mfa is 404 JSON (mfa is not a provider name)', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  for (const path of ['/auth/mfa/x', '/auth/mfa/totp/x']) {
    const res = await new Client(app.url).fetch(path);
    t.is(res.status, 404, path);
    t.is(await errorCode(res), 'not_found', path);
  }
});

const direct = (name = 'direct') => ({
  kind: 'direct' as const,
  name,
  checker: (user: string, pw: string) => PASSWORDS[user] === pw,
});
const base = (): AuthKoaOptions => ({ secret: SECRET, url: 'http://127.0.0.1:8080', providers: [direct()] });

test('start-up: mfa without store is a TypeError naming mfa.store', async (t) => {
  await t.throwsAsync(started({ ...base(), mfa: {} as never }), { instanceOf: TypeError, message: /mfa\.store/ });
});

test('start-up: a misspelled mfa option is named, with the name meant', async (t) => {
  const store = `lmdb://${join(tempDir(t), 'mfa')}`;
  await t.throwsAsync(started({ ...base(), mfa: { store, windw: 1 } as never }), {
    instanceOf: TypeError,
    message: /mfa\.windw.*"window"/,
  });
});

test('start-up: a provider named "mfa" while mfa is on is an error naming it', async (t) => {
  const err = await t.throwsAsync(
    started({ ...base(), providers: [direct(), direct('mfa')], mfa: { store: memoryStateStore() } }),
  );
  t.regex(err!.message, /provider.*"mfa"/);
  const off = await started({ ...base(), providers: [direct('mfa')] });
  await off.close();
  t.pass('without mfa the name is free');
});

test('start-up: a secretReader without mfa.secret is a TypeError naming mfa.secret', async (t) => {
  const { secret: _, ...rest } = base();
  const reader = { ...rest, secretReader: () => SECRET };
  await t.throwsAsync(started({ ...reader, mfa: { store: memoryStateStore() } }), {
    instanceOf: TypeError,
    message: /mfa\.secret/,
  });
  const auth = await started({
    ...reader,
    mfa: { store: memoryStateStore(), secret: 'another-mfa-secret-0123456789' },
  });
  await auth.close();
  t.pass('with mfa.secret it starts');
});

test('at rest: the factor store record holds neither the base32 secret nor any recovery code in clear', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const { id } = (await (await passwordLogin(c, 'alice')).json()) as { id: string };
  const { secret } = (await (await c.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: c.xsrf() })).json()) as {
    secret: string;
    otpauthUrl: string;
  };
  const pending = JSON.stringify((await app.factorState.get('mfa', id))?.value);
  t.regex(pending, /pendingTotp/, 'the pending key is in the store');
  t.false(pending.toUpperCase().includes(secret), 'but not in clear');

  const otpauthUrl = `otpauth://totp/x:alice?secret=${secret}&issuer=x`;
  const confirmed = await c.fetch('/auth/mfa/totp/confirm', {
    method: 'POST',
    headers: c.xsrf(),
    json: { code: appCode(otpauthUrl, app.clock()) },
  });
  const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
  const record = (await app.factorState.get<{ totp: unknown; recoveryCodes: string[] }>('mfa', id))?.value;
  t.truthy(record?.totp);
  t.is(record?.recoveryCodes.length, 10, 'ten recovery codes are kept');
  const json = JSON.stringify(record);
  t.false(json.toUpperCase().includes(secret), 'no secret');
  const key = Buffer.from(OTPAuth.Secret.fromBase32(secret).bytes);
  for (const form of [key.toString('hex'), key.toString('base64'), key.toString('base64url')])
    t.false(json.toLowerCase().includes(form.toLowerCase()), `nor the key's bytes as ${form}`);
  for (const code of recoveryCodes) {
    t.false(json.includes(code), code);
    t.false(json.includes(code.replace(/-/g, '')), `${code} without dashes`);
  }
});
