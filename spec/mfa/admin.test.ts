/**
 * The second factor's admin API: `auth.mfa` (the instance's shortcut the feature table declares),
 * `auth.features.get('mfa')` and `mfaAdmin(store)` over the app's `mfa.store` are one API; without the
 * `mfa` option there is none. `authctl mfa` runs the same (spec/cli/mfa.test.ts).
 */
import test from 'ava';
import { mfaAdmin, type MfaAdmin } from '../../lib/index.js';
import { Client, startApp } from '../helpers/http.js';
import { enrolledUser, passwordLogin, startMfaApp } from './fixtures.js';

test('auth.mfa, auth.features.get("mfa") and mfaAdmin(mfa.store) see the same factors; reset through one is seen by the others and by the next login', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { c } = await enrolledUser(app, 'alice');
  const userId = ((await (await c.fetch('/auth/user', { headers: c.xsrf() })).json()) as { id: string }).id;
  const outside = mfaAdmin(app.factorState);
  const viaFeatures = app.auth.features.get<MfaAdmin>('mfa')!;
  const status = await app.auth.mfa!.status(userId);
  t.like(status, { userId, stored: true, totp: true, setupPending: false, recoveryCodesLeft: 10 });
  t.deepEqual(await outside.status(userId), status);
  t.deepEqual(await viaFeatures.status(userId), status);

  t.true(await app.auth.mfa!.reset(userId), 'TOTP was on');
  t.like(await outside.status(userId), { stored: false, totp: false, recoveryCodesLeft: 0 });
  t.false(await viaFeatures.reset(userId), 'nothing left to remove');
  t.is(await outside.clear(userId), undefined);
  // The next login needs the password alone.
  t.like(await (await passwordLogin(new Client(app.url), 'alice')).json(), { id: userId });
});

test('clear() says what it removed: a pending set-up and recovery codes counted even with TOTP off', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const b = new Client(app.url);
  const login = (await (await passwordLogin(b, 'bob')).json()) as { id: string };
  t.is((await b.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: b.xsrf() })).status, 200);
  t.like(await app.auth.mfa!.status(login.id), { stored: true, totp: false, setupPending: true });
  t.deepEqual(await app.auth.mfa!.clear(login.id), { totp: false, setupPending: true, recoveryCodes: 0 });
});

test('without the mfa option there is no auth.mfa and no mfa feature; auth.on() still takes its events', async (t) => {
  const app = await startApp({
    secret: 'no-mfa-secret-0123456789abcdefghij',
    providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
  });
  t.teardown(() => app.close());
  await app.auth.ready;
  t.is(app.auth.mfa, undefined);
  t.false(app.auth.features.list().includes('mfa'));
  t.notThrows(() => app.auth.on('mfa_changed', () => {}));
  t.notThrows(() => app.auth.on('mfa_failed', () => {}));
});

test('mfaAdmin() without a store is a TypeError', (t) => {
  t.throws(() => mfaAdmin(undefined as never), { instanceOf: TypeError, message: /mfaAdmin\(\) requires a store/ });
});
