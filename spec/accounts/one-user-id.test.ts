/**
 * One account, one user id (docs/accounts.md#one-account-one-user-id): with two `password` providers over one
 * `accounts` store, an account logs in as the same user at both, so its second factor, its sessions and its
 * account routes are one; the admin API takes the account's address, id and user id alike.
 */
import test from 'ava';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.js';
import { emailSender } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import {
  accountsRig,
  appCode,
  enrolTotp,
  FAST_SCRYPT,
  PASSWORD,
  post,
  signUpAndConfirm,
  whoami,
  type AccountsRig,
} from './rig.js';

/** The rig with a second password provider, `staff`, beside `local`, mailing through the same SMTP peer. */
async function twoProviders(t: Parameters<typeof accountsRig>[0], mfa = true): Promise<AccountsRig> {
  let port = 0;
  const r = await accountsRig(t, {
    mfa,
    extraProviders: [
      {
        kind: 'password',
        name: 'staff',
        scrypt: FAST_SCRYPT,
        // The SMTP peer's port is only known once the rig has started it: read at send time.
        sender: (address: string, text: string, about: { subject: string }) =>
          emailSender({ host: '127.0.0.1', port, secure: false, from: 'staff@example.com', timeout: '30s' }).send(
            address,
            text,
            about,
          ),
      },
    ],
  });
  port = r.smtp.port;
  return r;
}

function loginAt(client: Client, provider: string, email: string, password = PASSWORD): Promise<Response> {
  return post(client, `/auth/${provider}/login`, { user: email, passwd: password });
}

test('two password providers: TOTP turned on from local is asked at staff too, and staff logs in as the same user', async (t) => {
  const r = await twoProviders(t);
  const me = await signUpAndConfirm(r, 'two@example.com');
  const otpauth = await enrolTotp(r);
  r.clock.advance(1000);

  // At local: the password alone is a partial login, the second factor completes it.
  const atLocal = new Client(r.app.url);
  const first = await loginAt(atLocal, 'local', 'two@example.com');
  t.deepEqual(await first.json(), { mfa_required: true, factors: ['totp', 'recovery'] }, 'local asks for it');

  // At staff: the same, where before the password alone gave a full session of another user id.
  const atStaff = new Client(r.app.url);
  const second = await loginAt(atStaff, 'staff', 'two@example.com');
  t.deepEqual(await second.json(), { mfa_required: true, factors: ['totp', 'recovery'] }, 'staff asks for it too');
  t.is((await whoami(atStaff)).status, 401, 'no session without the second factor');
  r.clock.advance(30_000);
  const step = await atStaff.fetch('/auth/mfa/verify', {
    method: 'POST',
    headers: { origin: r.app.url },
    json: { code: appCode(otpauth, r.clock()) },
  });
  t.is(step.status, 200, await step.clone().text());
  const user = (await whoami(atStaff)).user!;
  t.is(user.id, me.id, 'staff logs the account in as the user local does');
  t.regex(String(user.id), /^local_acct_/);
});

test("two password providers: staff's account routes act on the account local signed up, under one user id", async (t) => {
  const r = await twoProviders(t, false);
  const me = await signUpAndConfirm(r, 'routes@example.com');
  r.clock.advance(1000);
  const staff = new Client(r.app.url);
  t.is((await loginAt(staff, 'staff', 'routes@example.com')).status, 200);
  t.is((await whoami(staff)).user!.id, me.id);
  const changed = await post(staff, '/auth/staff/password', { current: PASSWORD, password: 'a brand new password' });
  t.is(changed.status, 200, await changed.clone().text());
  r.clock.advance(1000);
  t.is((await loginAt(new Client(r.app.url), 'local', 'routes@example.com', 'a brand new password')).status, 200);
  const sessions = await r.app.auth.sessions.list(String(me.id));
  t.true(sessions.length >= 1, 'the sessions of both providers are listed under the one id');
});

test('auth.accounts takes the address, the account id and the session user id alike; an unknown one is refused by name', async (t) => {
  const r = await twoProviders(t, false);
  const me = await signUpAndConfirm(r, 'admin-forms@example.com');
  const accounts = r.app.auth.accounts!;
  const byEmail = await accounts.find('Admin-Forms@example.com');
  t.truthy(byEmail);
  t.is(byEmail!.userId, String(me.id), 'the view names the session user id');
  t.false('passwordHash' in byEmail!, 'no hash in find()');
  t.true(byEmail!.hasPassword);
  t.is((await accounts.find(String(me.id)))?.id, byEmail!.id, 'by the session user id');
  t.is((await accounts.find(byEmail!.id))?.email, 'admin-forms@example.com', 'by the account id');
  for (const row of await accounts.list()) t.false('passwordHash' in row);

  await accounts.setPassword(String(me.id), 'set by the operator');
  r.clock.advance(1000);
  t.is((await loginAt(new Client(r.app.url), 'staff', 'admin-forms@example.com', 'set by the operator')).status, 200);

  await t.throwsAsync(accounts.delete('nobody@example.com'), { message: 'no account nobody@example.com' });
  await t.throwsAsync(accounts.setPassword('local_acct_AAAAAAAAAAAAAAAAAAAA', 'whatever password'), {
    message: 'no account local_acct_AAAAAAAAAAAAAAAAAAAA',
  });
  t.true(await accounts.delete(String(me.id)), 'deleted by the session user id');
  r.clock.advance(1000);
  const gone = await loginAt(new Client(r.app.url), 'local', 'admin-forms@example.com', 'set by the operator');
  t.is(gone.status, 403, 'the login no longer works');
});

test('the user-id prefix is recorded: the same account keeps its id after its first password provider is renamed away', async (t) => {
  const store = `lmdb://${join(tempDir(t, 'authkoa-prefix-'), 'accounts')}`;
  const before = await accountsRig(t, { store });
  const me = await signUpAndConfirm(before, 'kept@example.com');
  t.regex(String(me.id), /^local_acct_/);
  await before.app.close();

  // The same stores under a configuration whose only password provider is `staff`.
  const after = await accountsRig(t, { store, provider: { name: 'staff' } });
  const client = new Client(after.app.url);
  t.is((await loginAt(client, 'staff', 'kept@example.com')).status, 200);
  t.is((await whoami(client)).user!.id, me.id, 'the id the account had');
});
