/**
 * The second factor over real HTTP, with the direct provider as first factor: enrolment, the key URI an
 * authenticator app reads, the factors summary, TOTP replay and window, recovery codes, turning TOTP off,
 * and `mfa.required`. The app's clock is moved by hand; codes come from the `otpauth` library.
 */
import test from 'ava';
import * as OTPAuth from 'otpauth';
import { Client, decodeJwt } from '../helpers/http.js';
import {
  appCode,
  enrolledUser,
  enrollTotp,
  errorCode,
  loginWithTotp,
  passwordLogin,
  startMfaApp,
  verify,
} from './fixtures.js';

const STEP = 30_000;
const setup = (c: Client) => c.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: c.xsrf() });
const confirm = (c: Client, code: string) =>
  c.fetch('/auth/mfa/totp/confirm', { method: 'POST', headers: c.xsrf(), json: { code } });
const factors = (c: Client) => c.fetch('/auth/mfa', { headers: c.xsrf() });

test('enrol: setup needs a session (401 without) and a fresh one: 401 reauth_required once the login is over 5 min old', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const anonymous = await setup(new Client(app.url));
  t.is(anonymous.status, 401);
  t.is(await errorCode(anonymous), 'no_token');

  const c = new Client(app.url);
  t.is((await passwordLogin(c, 'alice')).status, 200);
  app.clock.advance(5 * 60_000);
  t.is((await setup(c)).status, 200, 'a login exactly 5 min old is still fresh');
  app.clock.advance(1000);
  const stale = await setup(c);
  t.is(stale.status, 401);
  t.is(await errorCode(stale), 'reauth_required');
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201, 'the session itself is still valid');
  t.is((await passwordLogin(c, 'alice')).status, 200);
  t.is((await setup(c)).status, 200, 'a new login makes it fresh again');
});

test('enrol: nothing is active before confirm; a wrong code is 403 invalid_code; confirm answers 10 distinct recovery codes', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const { otpauthUrl } = (await (await setup(c)).json()) as { otpauthUrl: string };

  const between = new Client(app.url);
  const loginBefore = await passwordLogin(between, 'alice');
  t.is(loginBefore.status, 200);
  const body = (await loginBefore.json()) as Record<string, unknown>;
  t.is(body.mfa_required, undefined, 'a pending key asks for no second step');
  t.is(body.name, 'alice');
  t.true(between.jar.has('JWT'), 'the login got its session');
  t.false(between.jar.has('JWT-MFA'));
  t.deepEqual(await (await factors(c)).json(), { totp: false, recoveryCodesLeft: 0, passkeys: 0 });

  const now = app.clock();
  const wrong = await confirm(c, appCode(otpauthUrl, now + 5 * STEP));
  t.is(wrong.status, 403);
  t.is(await errorCode(wrong), 'invalid_code');
  const right = await confirm(c, appCode(otpauthUrl, now));
  t.is(right.status, 200);
  const { recoveryCodes } = (await right.json()) as { recoveryCodes: string[] };
  t.is(recoveryCodes.length, 10);
  t.is(new Set(recoveryCodes).size, 10, 'all different');
  for (const code of recoveryCodes) t.regex(code, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
  t.deepEqual(
    await (await passwordLogin(new Client(app.url), 'alice')).json(),
    { mfa_required: true, factors: ['totp', 'recovery'] },
    'now it is on',
  );
});

test('the otpauthUrl as the otpauth library reads it: issuer the host of url, label the account, SHA1/6/30; its code is accepted', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const { secret, otpauthUrl, qr } = (await (await setup(c)).json()) as {
    secret: string;
    otpauthUrl: string;
    qr: string;
  };
  const parsed = OTPAuth.URI.parse(otpauthUrl);
  t.true(parsed instanceof OTPAuth.TOTP);
  const totp = parsed as OTPAuth.TOTP;
  t.is(totp.issuer, new URL(app.url).hostname);
  t.is(totp.label, 'alice');
  t.is(totp.algorithm, 'SHA1');
  t.is(totp.digits, 6);
  t.is(totp.period, 30);
  t.is(totp.secret.base32, secret);
  t.regex(qr, /^data:image\/svg\+xml;base64,/);
  const accepted = await confirm(c, totp.generate({ timestamp: app.clock() }));
  t.is(accepted.status, 200, 'the code the library computed confirms the key');

  const named = await startMfaApp({ mfa: { issuer: 'Example Shop' } as never });
  t.teardown(() => named.close());
  const d = new Client(named.url);
  await passwordLogin(d, 'bob');
  const other = OTPAuth.URI.parse(
    ((await (await setup(d)).json()) as { otpauthUrl: string }).otpauthUrl,
  ) as OTPAuth.TOTP;
  t.is(other.issuer, 'Example Shop', 'mfa.issuer wins over the host');
  t.is(other.label, 'bob');
});

test("GET /auth/mfa: the session user's factors, a pending login's factors, else 401", async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { c } = await enrolledUser(app);
  const own = await factors(c);
  t.is(own.status, 200);
  t.is(await own.text(), '{"totp":true,"recoveryCodesLeft":10,"passkeys":0}\n');

  const pending = new Client(app.url);
  await passwordLogin(pending, 'alice');
  t.false(pending.jar.has('JWT'));
  t.deepEqual(await (await factors(pending)).json(), { mfa_required: true, factors: ['totp', 'recovery'] });
  const none = await factors(new Client(app.url));
  t.is(none.status, 401);
  t.is(await errorCode(none), 'no_token');
});

test('a login with TOTP on: no session until the code, then one with amr pwd+otp+mfa', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  const first = await passwordLogin(c, 'alice');
  t.deepEqual(await first.json(), { mfa_required: true, factors: ['totp', 'recovery'] });
  t.false(c.jar.has('JWT'));
  t.is((await c.fetch('/auth/user')).status, 401);
  const second = await verify(c, { code: appCode(otpauthUrl, app.clock()) });
  t.is(second.status, 200);
  t.like(await second.json(), { name: 'alice' });
  t.deepEqual(decodeJwt(c.jar.get('JWT')!).amr, ['pwd', 'otp', 'mfa']);
  t.false(c.jar.has('JWT-MFA'), 'the partial cookie is cleared');
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});

test('TOTP replay: the same code for two logins in the same step is refused the second time (403 invalid_code)', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const [first, second] = [new Client(app.url), new Client(app.url)];
  await passwordLogin(first, 'alice');
  await passwordLogin(second, 'alice');
  const code = appCode(otpauthUrl, app.clock());
  t.is((await verify(first, { code })).status, 200);
  const replay = await verify(second, { code });
  t.is(replay.status, 403);
  t.is(await errorCode(replay), 'invalid_code');
  t.false(second.jar.has('JWT'));
  app.clock.advance(STEP);
  t.is(
    (await verify(second, { code: appCode(otpauthUrl, app.clock()) })).status,
    200,
    'the same pending login passes with the next step',
  );
});

test('TOTP window 1: codes of step-1 and step+1 are accepted, step-2 and step+2 refused', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  app.clock.advance(2 * STEP); // clear of the step enrolment spent
  const now = app.clock();
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  for (const steps of [-2, 2]) {
    const res = await verify(c, { code: appCode(otpauthUrl, now + steps * STEP) });
    t.is(res.status, 403, `step ${steps}`);
    t.is(await errorCode(res), 'invalid_code');
  }
  t.is((await verify(c, { code: appCode(otpauthUrl, now - STEP) })).status, 200, 'step -1');
  const d = new Client(app.url);
  await passwordLogin(d, 'alice');
  t.is((await verify(d, { code: appCode(otpauthUrl, now + STEP) })).status, 200, 'step +1');
});

test('TOTP mfa.window 0: the code of step-1 is refused, the current one accepted', async (t) => {
  const app = await startMfaApp({ mfa: { window: 0 } as never });
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  app.clock.advance(2 * STEP);
  const c = new Client(app.url);
  await passwordLogin(c, 'alice');
  const late = await verify(c, { code: appCode(otpauthUrl, app.clock() - STEP) });
  t.is(late.status, 403);
  t.is(await errorCode(late), 'invalid_code');
  t.is((await verify(c, { code: appCode(otpauthUrl, app.clock()) })).status, 200);
});

test('recovery codes: each single-use, counted down in GET /auth/mfa, entered in any case and without dashes; regenerating replaces all', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { recoveryCodes } = await enrolledUser(app);
  const withRecovery = async (code: string) => {
    const c = new Client(app.url);
    await passwordLogin(c, 'alice');
    return { c, res: await verify(c, { recoveryCode: code }) };
  };
  const used = await withRecovery(recoveryCodes[0]!);
  t.is(used.res.status, 200);
  t.deepEqual(decodeJwt(used.c.jar.get('JWT')!).amr, ['pwd', 'otp', 'mfa']);
  t.like(await (await factors(used.c)).json(), { recoveryCodesLeft: 9 });
  const again = await withRecovery(recoveryCodes[0]!);
  t.is(again.res.status, 403, 'a code is used once');
  t.is(await errorCode(again.res), 'invalid_code');

  const typed = await withRecovery(recoveryCodes[1]!.toUpperCase().replace(/-/g, ''));
  t.is(typed.res.status, 200, 'upper case, no dashes');
  t.like(await (await factors(typed.c)).json(), { recoveryCodesLeft: 8 });

  const regenerated = await typed.c.fetch('/auth/mfa/recovery-codes', { method: 'POST', headers: typed.c.xsrf() });
  t.is(regenerated.status, 200);
  const fresh = ((await regenerated.json()) as { recoveryCodes: string[] }).recoveryCodes;
  t.is(new Set(fresh).size, 10);
  t.is(fresh.filter((code) => recoveryCodes.includes(code)).length, 0);
  t.like(await (await factors(typed.c)).json(), { recoveryCodesLeft: 10 });
  const old = await withRecovery(recoveryCodes[2]!);
  t.is(old.res.status, 403, 'an old code never used is gone');
  t.is(await errorCode(old.res), 'invalid_code');
  t.is((await withRecovery(fresh[0]!)).res.status, 200);
});

test('DELETE /auth/mfa/totp: refused 401 reauth_required for a session over 5 min old; when fresh, the next login gets a session directly', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  t.is((await loginWithTotp(app, c, otpauthUrl)).status, 200);
  const remove = () => c.fetch('/auth/mfa/totp', { method: 'DELETE', headers: c.xsrf() });
  app.clock.advance(6 * 60_000);
  const stale = await remove();
  t.is(stale.status, 401);
  t.is(await errorCode(stale), 'reauth_required');
  t.is((await loginWithTotp(app, c, otpauthUrl)).status, 200);
  const removed = await remove();
  t.is(removed.status, 200);
  t.deepEqual(await removed.json(), { totp: false, recoveryCodesLeft: 0, passkeys: 0 });

  const next = new Client(app.url);
  const login = await passwordLogin(next, 'alice');
  t.is(login.status, 200);
  t.like(await login.json(), { name: 'alice' });
  t.true(next.jar.has('JWT'));
  t.false(next.jar.has('JWT-MFA'));
});

test('mfa.required: a user without a factor gets an enrolment-only partial login; setup + confirm with it finish the login', async (t) => {
  const app = await startMfaApp({ mfa: { required: true } as never });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await passwordLogin(c, 'bob');
  t.is(login.status, 200);
  t.deepEqual(await login.json(), { mfa_required: true, enroll_required: true, factors: [] });
  t.false(c.jar.has('JWT'));
  t.true(c.jar.has('JWT-MFA'));
  t.deepEqual(await (await factors(c)).json(), { mfa_required: true, enroll_required: true, factors: [] });
  const early = await verify(c, { code: '123456' });
  t.is(early.status, 403);
  t.is(await errorCode(early), 'enrollment_required');
  t.is((await c.fetch('/auth/user')).status, 401);
  t.is((await c.fetch('/auth/mfa/recovery-codes', { method: 'POST' })).status, 403);

  const { otpauthUrl } = (await (await setup(c)).json()) as { otpauthUrl: string };
  const done = await confirm(c, appCode(otpauthUrl, app.clock()));
  t.is(done.status, 200);
  const body = (await done.json()) as { recoveryCodes: string[]; user: { name: string } };
  t.is(body.recoveryCodes.length, 10);
  t.is(body.user.name, 'bob');
  t.true(c.jar.has('JWT') && c.jar.has('XSRF-TOKEN'), 'session cookies');
  t.false(c.jar.has('JWT-MFA'));
  t.true(decodeJwt(c.jar.get('JWT')!).amr.includes('otp'));
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
});

test('mfa.required as a function of the user: alice must enrol, bob logs in directly', async (t) => {
  const app = await startMfaApp({ mfa: { required: (user: { name: string }) => user.name === 'alice' } as never });
  t.teardown(() => app.close());
  const alice = await passwordLogin(new Client(app.url), 'alice');
  t.deepEqual(await alice.json(), { mfa_required: true, enroll_required: true, factors: [] });
  const bob = new Client(app.url);
  const login = await passwordLogin(bob, 'bob');
  t.like(await login.json(), { name: 'bob' });
  t.true(bob.jar.has('JWT'));
  // bob may still turn a factor on himself, and is then asked for it like anyone.
  await enrollTotp(app, bob);
  t.deepEqual(await (await passwordLogin(new Client(app.url), 'bob')).json(), {
    mfa_required: true,
    factors: ['totp', 'recovery'],
  });
});
