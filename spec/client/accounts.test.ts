/**
 * `authkoa/client`'s `accounts` calls in Node against a running app over real HTTP, its password provider
 * `local` mailing through a real SMTP server (spec/accounts/rig.ts): sign-up, the mailed link redeemed by the
 * client, a reset, a new password and a new address, deletion, and every refusal as an AuthClientError with the
 * server's code. Every answer is checked against the app's OpenAPI document when it closes.
 */
import test, { type ExecutionContext } from 'ava';
import { AuthClientError, createAuthClient } from '../../browser/client.js';
import { accountsRig, linkIn, PASSWORD, tokenOf, type AccountsRig } from '../accounts/rig.js';

const NEW_PASSWORD = 'another horse, stapled';
/** Past the session token's life (15 minutes by default): a session refreshes at its next request, or is refused. */
const TOKEN_LIFE = 16 * 60_000;

function client(r: AccountsRig) {
  return createAuthClient({ baseURL: r.app.url });
}

/** The rejection of `p`, which must be an AuthClientError. */
async function refusal(t: ExecutionContext, p: Promise<unknown>): Promise<AuthClientError> {
  const err = await t.throwsAsync(p);
  if (!(err instanceof AuthClientError)) throw new Error(`not an AuthClientError: ${String(err)}`);
  return err;
}

/** The token of the next mail's link, and the address it went to. */
async function mailed(r: AccountsRig): Promise<{ to: string; token: string; subject: string }> {
  const mail = await r.smtp.next();
  return { to: mail.envelopeTo.join(','), token: tokenOf(linkIn(mail)), subject: mail.mail.subject ?? '' };
}

/** An account signed up and confirmed through the client, which ends up logged in. */
async function confirmedAccount(r: AccountsRig, email: string, auth = client(r)) {
  await auth.accounts.signup({ email, password: PASSWORD });
  const { token } = await mailed(r);
  const result = await auth.accounts.confirm(token);
  if (result.state !== 'logged_in') throw new Error(`confirm: ${result.state}`);
  return { auth, user: result.user };
}

test('sign-up → the mailed link redeemed by confirm() → logged in with the address and name; then a password login', async (t) => {
  const r = await accountsRig(t);
  const auth = client(r);
  t.deepEqual(await auth.accounts.signup({ email: 'Ann@Example.com', password: PASSWORD, name: 'Ann' }), {
    status: 'check_email',
  });
  const first = await mailed(r);
  t.is(first.to, 'ann@example.com');
  // The right password before the address is confirmed: refused as a wrong one, and a new link.
  t.like(await refusal(t, auth.login('local', { user: 'ann@example.com', passwd: PASSWORD })), {
    code: 'bad_credentials',
    status: 403,
    message: 'bad credentials; if you just signed up, confirm your address first',
  });
  const again = await mailed(r);
  t.not(again.token, first.token);

  const confirmed = await auth.accounts.confirm(again.token);
  t.is(confirmed.state, 'logged_in');
  if (confirmed.state !== 'logged_in') return;
  t.like(confirmed.user, { name: 'Ann', email: 'ann@example.com' });
  t.regex(confirmed.user.id, /^local_acct_/);
  t.like(await auth.user(), { id: confirmed.user.id, email: 'ann@example.com' });
  t.like(await refusal(t, auth.accounts.confirm(again.token)), { code: 'confirmation_used', status: 403 });

  await auth.logout();
  const login = await auth.login('local', { user: 'ann@example.com', passwd: PASSWORD });
  t.like(login, { state: 'logged_in', user: { id: confirmed.user.id } });
});

test('refusals carry the server code: invalid_email, weak_password, bad_credentials, confirmation_invalid, unknown_provider; bad arguments are TypeErrors', async (t) => {
  const r = await accountsRig(t);
  const auth = client(r);
  t.like(await refusal(t, auth.accounts.signup({ email: 'not an address', password: PASSWORD })), {
    code: 'invalid_email',
    status: 400,
  });
  t.like(await refusal(t, auth.accounts.signup({ email: 'bo@example.com', password: 'short' })), {
    code: 'weak_password',
    status: 400,
  });
  t.like(await refusal(t, auth.accounts.reset('nobody')), { code: 'invalid_email', status: 400 });
  t.like(await refusal(t, auth.login('local', { user: 'bo@example.com', passwd: PASSWORD })), {
    code: 'bad_credentials',
    status: 403,
  });
  t.like(await refusal(t, auth.accounts.confirm('not-a-token')), { code: 'confirmation_invalid', status: 403 });
  t.like(await refusal(t, auth.accounts.signup({ email: 'bo@example.com', password: PASSWORD }, { provider: 'x' })), {
    code: 'unknown_provider',
  });
  t.like(await refusal(t, auth.accounts.delete()), { code: 'no_token', status: 401 });
  await t.throwsAsync(auth.accounts.confirm(''), { instanceOf: TypeError, message: /token/ });
  await t.throwsAsync(auth.accounts.signup({ email: 'a@example.com' } as never), { instanceOf: TypeError });
  await t.throwsAsync(auth.accounts.reset('a@example.com', { provider: 'local/../x' }), {
    instanceOf: TypeError,
    message: /provider/,
  });
});

test('reset → the link → resetConfirm(): a weak password leaves the link unspent; the old session ends; the new password logs in', async (t) => {
  const r = await accountsRig(t);
  const { auth: laptop } = await confirmedAccount(r, 'cy@example.com');
  const phone = client(r);
  t.deepEqual(await phone.accounts.reset('cy@example.com'), { status: 'check_email' });
  // An address without an account answers alike, and nothing is mailed for it (the next mail is the real one).
  t.deepEqual(await phone.accounts.reset('nobody@example.com'), { status: 'check_email' });
  const { to, token } = await mailed(r);
  t.is(to, 'cy@example.com');

  t.like(await refusal(t, phone.accounts.resetConfirm(token, 'short')), { code: 'weak_password', status: 400 });
  t.deepEqual(await phone.accounts.resetConfirm(token, NEW_PASSWORD), { status: 'password_reset' });
  t.like(await refusal(t, phone.accounts.resetConfirm(token, NEW_PASSWORD)), { code: 'confirmation_used' });
  t.like(await refusal(t, phone.user()), { code: 'no_token' }, 'a reset logs nobody in');
  r.clock.advance(TOKEN_LIFE); // an ended session is refused at its next refresh
  t.like(await refusal(t, laptop.user()), { code: 'session_revoked' }, 'the session from before the reset is over');

  t.like(await refusal(t, phone.login('local', { user: 'cy@example.com', passwd: PASSWORD })), {
    code: 'bad_credentials',
  });
  t.like(await phone.login('local', { user: 'cy@example.com', passwd: NEW_PASSWORD }), { state: 'logged_in' });
});

test('changePassword() and changeEmail() on a fresh login: the other session ends, the new address applies once confirmed; reauth_required when not fresh', async (t) => {
  const r = await accountsRig(t);
  const { auth, user } = await confirmedAccount(r, 'di@example.com');
  const other = client(r);
  await other.login('local', { user: 'di@example.com', passwd: PASSWORD });

  t.like(await refusal(t, auth.accounts.changePassword('wrong password!', NEW_PASSWORD)), {
    code: 'bad_credentials',
    status: 403,
  });
  t.deepEqual(await auth.accounts.changePassword(PASSWORD, NEW_PASSWORD), { status: 'password_changed' });
  t.like(await auth.user(), { id: user.id }, 'this session goes on');

  t.deepEqual(await auth.accounts.changeEmail('di.new@example.com'), { status: 'check_email' });
  const mails = [await r.smtp.next(), await r.smtp.next()];
  const to = (address: string) => mails.find((m) => m.envelopeTo.includes(address));
  t.truthy(to('di@example.com'), 'a notice to the old address');
  const toNew = to('di.new@example.com');
  if (!toNew) return t.fail('no link to the new address');
  // Redeemed by a client with no session at all: the link is the proof.
  t.deepEqual(await client(r).accounts.confirm(tokenOf(linkIn(toNew))), {
    state: 'email_changed',
    email: 'di.new@example.com',
  });
  t.like(await auth.user(), { id: user.id }, 'the session that asked for it goes on');
  t.like(await client(r).login('local', { user: 'di.new@example.com', passwd: NEW_PASSWORD }), {
    state: 'logged_in',
    user: { id: user.id, email: 'di.new@example.com' },
  });

  // Past the token's life (and `fresh`, 5 minutes): each session refreshes, or is refused when it was ended.
  r.clock.advance(TOKEN_LIFE);
  t.like(await refusal(t, other.user()), { code: 'session_revoked' }, 'the other session ended with the new password');
  t.like(await auth.user(), { id: user.id }, 'the one that changed it goes on');
  t.like(await refusal(t, auth.accounts.changePassword(NEW_PASSWORD, PASSWORD)), {
    code: 'reauth_required',
    status: 401,
  });
  t.like(await refusal(t, auth.accounts.delete()), { code: 'reauth_required' });
});

test('delete(): the account goes, every session ends, this client is logged out, and the address can sign up again', async (t) => {
  const r = await accountsRig(t);
  const { auth } = await confirmedAccount(r, 'ed@example.com');
  const other = client(r);
  await other.login('local', { user: 'ed@example.com', passwd: PASSWORD });
  t.deepEqual(await auth.accounts.delete(), { status: 'account_deleted' });
  t.like(await refusal(t, auth.user()), { code: 'no_token' });
  r.clock.advance(TOKEN_LIFE);
  t.like(await refusal(t, other.user()), { code: 'session_revoked' });
  t.like(await refusal(t, auth.login('local', { user: 'ed@example.com', passwd: PASSWORD })), {
    code: 'bad_credentials',
  });
  t.deepEqual(await auth.accounts.signup({ email: 'ed@example.com', password: PASSWORD }), { status: 'check_email' });
  t.regex((await r.smtp.next()).mail.subject ?? '', /confirm/i, 'a confirmation, not the "has an account" notice');
});

test('the provider is an option: a password provider of another name', async (t) => {
  const r = await accountsRig(t, { provider: { name: 'members' } });
  const auth = client(r);
  t.like(await refusal(t, auth.accounts.signup({ email: 'fi@example.com', password: PASSWORD })), {
    code: 'unknown_provider',
  });
  await auth.accounts.signup({ email: 'fi@example.com', password: PASSWORD }, { provider: 'members' });
  const result = await auth.accounts.confirm((await mailed(r)).token, { provider: 'members' });
  t.like(result, { state: 'logged_in', user: { email: 'fi@example.com' } });
});

test("signup()'s `from` travels in the link: its page's Confirm goes on there, logged in", async (t) => {
  const r = await accountsRig(t);
  await client(r).accounts.signup({ email: 'gil@example.com', password: PASSWORD, from: '/welcome?x=1' });
  const { token } = await mailed(r);
  // The button of the link's page: a form POST from the app's own origin, as the browser sends it.
  const res = await fetch(`${r.app.url}/auth/local/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: r.app.url },
    body: new URLSearchParams({ token, session: '0' }),
    redirect: 'manual',
  });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), `${r.app.url}/welcome?x=1`);
  await t.throwsAsync(client(r).accounts.signup({ email: 'a@example.com', password: PASSWORD, from: 3 } as never), {
    instanceOf: TypeError,
    message: /from\?: string/,
  });
});
