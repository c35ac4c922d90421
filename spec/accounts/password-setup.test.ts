/**
 * The password kind's start-up errors (each names the option at fault and, for a misspelling, the closest
 * name), and the accounts' events: each told once per change, none carrying a password, a hash, a link or
 * its token.
 */
import test, { type ExecutionContext } from 'ava';
import type { AuthEventMap } from '../../lib/events/types.js';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, started } from '../helpers/http.js';
import {
  accountsRig,
  linkIn,
  login,
  mailsTo,
  PASSWORD,
  post,
  SECRET,
  signUpAndConfirm,
  tokenOf,
  type AccountsRig,
} from './rig.js';

const ENTRY = { kind: 'password', name: 'local', sender: async () => {}, scrypt: { ln: 10, r: 8, p: 1 } };

/** authKoa() with these options, started: the error it is refused with. */
async function refusal(t: ExecutionContext, opts: Record<string, unknown>) {
  const err = await t.throwsAsync(
    started({ secret: SECRET, url: 'http://127.0.0.1:1', ...opts } as unknown as AuthKoaOptions),
  );
  t.log(err?.message);
  return err?.message ?? '';
}

test('start-up: a password kind without the accounts option is refused, naming the option', async (t) => {
  const message = await refusal(t, { providers: [ENTRY] });
  t.regex(message, /^authKoa: providers\[0\] \(password\): needs the accounts option/);
});

test('start-up: accounts.store memory:// is refused without allowVolatileStores, taken with it', async (t) => {
  const opts = { accounts: { store: 'memory://' }, providers: [ENTRY] };
  const message = await refusal(t, { ...opts, allowVolatileStores: false });
  t.regex(message, /^authKoa: accounts\.store is a memory store/);
  t.regex(message, /allowVolatileStores: true/);
  // What it names instead is what an account store can be: no Redis, which it does not take.
  t.regex(message, /\(lmdb:\/\/<path>, postgres:\/\/…, mongodb:\/\/…\)/);
  const auth = await started({ secret: SECRET, url: 'http://127.0.0.1:1', ...opts } as unknown as AuthKoaOptions);
  await auth.close();
  t.pass();
});

test("start-up: a misspelled option is named with the closest: accounts.stor, the provider's confirmTimout", async (t) => {
  const stor = await refusal(t, { accounts: { stor: 'memory://' }, providers: [ENTRY] });
  t.regex(stor, /"accounts\.stor"/);
  t.regex(stor, /did you mean "store"/);
  const timout = await refusal(t, {
    accounts: { store: 'memory://' },
    providers: [{ ...ENTRY, confirmTimout: '1h' }],
  });
  t.regex(timout, /confirmTimout/);
  t.regex(timout, /did you mean "confirmTimeout"/);
});

type Told = { type: string; event: Record<string, unknown> };

/** Every account event the rig's app tells, in order. */
function listen(r: AccountsRig): Told[] {
  const told: Told[] = [];
  const types = [
    'signup',
    'account_confirmed',
    'password_reset',
    'password_changed',
    'email_changed',
    'account_deleted',
  ];
  for (const type of types)
    r.app.auth.on(type as keyof AuthEventMap, (event) => void told.push({ type, event: event as never }));
  return told;
}

test('events: signup, account_confirmed, password_reset, password_changed, email_changed, account_deleted, each told once, with no secret in them', async (t) => {
  const r = await accountsRig(t);
  const told = listen(r);
  const secrets: string[] = [PASSWORD];
  const confirmed = await signUpAndConfirm(r, 'events@example.com');
  // The reset, with its link's token.
  await post(new Client(r.app.url), '/auth/local/reset', { email: 'events@example.com' });
  const resetToken = tokenOf(linkIn(await r.smtp.next()));
  secrets.push(resetToken, 'reset password one');
  await post(new Client(r.app.url), '/auth/local/reset/confirm', { token: resetToken, password: 'reset password one' });
  // A fresh login (a second later on the rig's clock: the reset ended every session of the user issued up to
  // its millisecond, at once), then the password changed, then the address.
  r.clock.advance(1000);
  t.is((await login(r.client, 'events@example.com', 'reset password one')).status, 200);
  secrets.push(r.client.jar.get('JWT')!);
  const changed = await post(r.client, '/auth/local/password', {
    current: 'reset password one',
    password: 'changed password two',
  });
  t.is(changed.status, 200, await changed.clone().text());
  secrets.push('changed password two');
  // The passwordChanged notices of the reset and of the change, each sent after its answer.
  const notices = [await r.smtp.next(), await r.smtp.next()];
  t.deepEqual(
    notices.map((m) => m.mail.subject),
    ['Your password was changed', 'Your password was changed'],
  );
  const moving = await post(r.client, '/auth/local/email', { email: 'moved@example.com' });
  t.is(moving.status, 202, await moving.clone().text());
  const emailToken = tokenOf(linkIn((await mailsTo(r, 2)).get('moved@example.com')!));
  secrets.push(emailToken);
  await post(new Client(r.app.url), '/auth/local/confirm', { token: emailToken });
  const gone = await r.client.fetch('/auth/local/account', {
    method: 'DELETE',
    headers: { origin: new URL(r.app.url).origin, ...r.client.xsrf() },
  });
  t.is(gone.status, 200);
  // Listeners run after the answer is on its way (setImmediate): one turn more and every one has run.
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(
    told.map((e) => e.type),
    ['signup', 'account_confirmed', 'password_reset', 'password_changed', 'email_changed', 'account_deleted'],
  );
  for (const { type, event } of told) {
    t.is(event.provider, 'local', type);
    t.is(event.userId, type === 'signup' ? undefined : confirmed.id, type);
    t.truthy(event.accountId, type);
    const text = JSON.stringify(event);
    for (const secret of secrets) t.false(text.includes(secret), `${type} carries no password, token or session`);
    t.notRegex(text, /\$scrypt\$/, `${type} carries no hash`);
  }
});
