/**
 * The accounts' flows over real HTTP and real SMTP, one suite run on each durable store (flows.test.ts):
 * sign-up → mail → confirm → session; reset → mail → new password → old sessions refused; change of
 * password; change of address; deletion; the second factor asked after a reset. Each test opens its own
 * store (`store(t)`: a fresh LMDB folder, table prefix or collection), so tests share nothing.
 */
import type { ExecutionContext, TestFn } from 'ava';
import { Client, decodeJwt } from '../helpers/http.js';
import {
  accountsRig,
  appCode,
  codeOf,
  enrolTotp,
  formOf,
  linkIn,
  login,
  mailsTo,
  PASSWORD,
  post,
  signUpAndConfirm,
  tokenOf,
  whoami,
  type AccountsRig,
} from './rig.js';

const NEW_PASSWORD = 'a brand new passphrase';

/** The account store URI a test's app uses. */
export type StoreOf = (t: ExecutionContext) => string | Promise<string>;

/** A second browser of the same account, logged in with the password. */
async function secondSession(t: ExecutionContext, r: AccountsRig, email: string, password = PASSWORD) {
  const other = new Client(r.app.url);
  const res = await login(other, email, password);
  t.is(res.status, 200, 'the second browser logs in');
  return other;
}

/**
 * Moves the clock past the token's lifetime (tokenDuration, 15 minutes by default): the next request of
 * each session refreshes its token, which is when an ended session is refused (strictRevocation off, the
 * default, so no store read per request).
 */
function pastTokenDuration(r: AccountsRig): void {
  r.clock.advance(15 * 60_000 + 1000);
}

/** A browser holding `client`'s session cookies now, to replay them once the client's own jar has moved on. */
function copyOf(r: AccountsRig, client: Client): Client {
  const copy = new Client(r.app.url);
  for (const [k, v] of client.jar) copy.jar.set(k, v);
  return copy;
}

export function flowSuite(test: TestFn, name: string, store: StoreOf): void {
  const rig = async (t: ExecutionContext, mfa = false) => accountsRig(t, { store: await store(t), mfa });

  test(`${name}: sign-up → mail → POST confirm (JSON) → a session whose user has the address and the name`, async (t) => {
    const r = await rig(t);
    const signup = await post(r.client, '/auth/local/signup', {
      email: 'Ada@Example.com',
      password: PASSWORD,
      name: 'Ada Lovelace',
    });
    t.is(signup.status, 202);
    t.deepEqual(await signup.json(), { status: 'check_email' });
    t.false(r.client.jar.has('JWT'), 'no session before the address is confirmed');
    t.is((await login(new Client(r.app.url), 'ada@example.com', PASSWORD)).status, 403, 'unconfirmed: no login');
    const mail = await r.smtp.next();
    t.deepEqual(mail.envelopeTo, ['ada@example.com']);
    t.false(mail.raw.toString('utf8').includes(PASSWORD), 'the mail never carries the password');
    const confirmed = await post(r.client, '/auth/local/confirm', { token: tokenOf(linkIn(mail)) });
    t.is(confirmed.status, 200, await confirmed.clone().text());
    const me = await whoami(r.client);
    t.is(me.status, 201);
    t.like(me.user, { email: 'ada@example.com', name: 'Ada Lovelace' });
    t.regex(String(me.user?.id), /^local_acct_/);
    const again = await login(new Client(r.app.url), 'ada@example.com', PASSWORD);
    t.is(again.status, 200, 'confirmed: the password logs in');
  });

  test(`${name}: sign-up → mail → GET the link (a page with a button, no login) → its form POST → a session, on to its from`, async (t) => {
    const r = await rig(t);
    const from = `${r.app.url}/welcome`;
    const signup = await post(r.client, '/auth/local/signup', { email: 'grace@example.com', password: PASSWORD, from });
    t.is(signup.status, 202);
    const link = linkIn(await r.smtp.next());
    const browser = new Client(r.app.url);
    const page = await browser.fetch(link);
    t.is(page.status, 200);
    t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
    t.false(browser.jar.has('JWT'), 'opening the link logs nobody in (a mail scanner may open it)');
    const form = formOf(await page.text());
    t.is(form.fields.token, tokenOf(link));
    const action = new URL(form.action, link);
    const submitted = await browser.fetch(action.href, {
      method: 'POST',
      form: form.fields,
      headers: { origin: new URL(r.app.url).origin },
    });
    t.is(submitted.status, 303, 'the browser goes on');
    t.is(submitted.headers.get('location'), from, 'to where the sign-up asked');
    t.true(browser.jar.has('JWT'), 'the button logged the browser in');
    const me = await whoami(browser);
    t.is(me.status, 201);
    t.like(me.user, { email: 'grace@example.com', name: 'grace@example.com' });
  });

  test(`${name}: reset → mail → new password: the old session gets 401, the old password is refused, the new one works`, async (t) => {
    const r = await rig(t);
    await signUpAndConfirm(r, 'reset@example.com');
    const old = await secondSession(t, r, 'reset@example.com');
    t.is((await whoami(r.client)).status, 201);
    const asked = await post(new Client(r.app.url), '/auth/local/reset', { email: 'reset@example.com' });
    t.is(asked.status, 202);
    const link = linkIn(await r.smtp.next());
    const done = await post(new Client(r.app.url), '/auth/local/reset/confirm', {
      token: tokenOf(link),
      password: NEW_PASSWORD,
    });
    t.is(done.status, 200, await done.clone().text());
    t.false(
      done.headers.getSetCookie().some((c) => c.startsWith('JWT=')),
      'a reset does not log in',
    );
    pastTokenDuration(r);
    for (const [who, c] of [
      ['the browser that signed up', r.client],
      ['the other browser', old],
    ] as const) {
      const res = await c.fetch('/private', { headers: c.xsrf() });
      t.is(res.status, 401, `${who}: its old session is refused`);
    }
    const byOld = await login(new Client(r.app.url), 'reset@example.com', PASSWORD);
    t.is(byOld.status, 403);
    t.is(await codeOf(byOld), 'bad_credentials');
    const fresh = new Client(r.app.url);
    t.is((await login(fresh, 'reset@example.com', NEW_PASSWORD)).status, 200);
    t.is((await whoami(fresh)).status, 201);
  });

  test(`${name}: change password (fresh): the other sessions end, this one goes on`, async (t) => {
    const r = await rig(t);
    await signUpAndConfirm(r, 'change@example.com');
    const other = await secondSession(t, r, 'change@example.com');
    const res = await post(r.client, '/auth/local/password', { current: PASSWORD, password: NEW_PASSWORD });
    t.is(res.status, 200, await res.clone().text());
    pastTokenDuration(r);
    t.is((await whoami(r.client)).status, 201, 'this session goes on');
    t.is((await whoami(other)).status, 401, 'the other session ended');
    t.is((await login(new Client(r.app.url), 'change@example.com', PASSWORD)).status, 403, 'old password refused');
    t.is((await login(new Client(r.app.url), 'change@example.com', NEW_PASSWORD)).status, 200, 'new one works');
  });

  test(`${name}: change address (fresh): a link to the new one, a notice to the old → confirm → the new address logs in, the old does not`, async (t) => {
    const r = await rig(t);
    await signUpAndConfirm(r, 'before@example.com');
    const other = await secondSession(t, r, 'before@example.com');
    const asked = await post(r.client, '/auth/local/email', { email: 'after@example.com' });
    t.is(asked.status, 202, await asked.clone().text());
    const mails = await mailsTo(r, 2);
    t.deepEqual([...mails.keys()].sort(), ['after@example.com', 'before@example.com']);
    const notice = mails.get('before@example.com')!;
    t.false((notice.mail.text ?? '').includes('token='), 'the notice to the old address carries no link to confirm');
    t.is((await login(new Client(r.app.url), 'after@example.com', PASSWORD)).status, 403, 'nothing changes before');
    const link = linkIn(mails.get('after@example.com')!);
    // Redeemed without a session, as the new address's owner opening it elsewhere would.
    const confirmed = await post(new Client(r.app.url), '/auth/local/confirm', { token: tokenOf(link) });
    t.is(confirmed.status, 200, await confirmed.clone().text());
    t.deepEqual(await confirmed.json(), { status: 'email_changed', email: 'after@example.com' });
    pastTokenDuration(r);
    const byNew = new Client(r.app.url);
    t.is((await login(byNew, 'after@example.com', PASSWORD)).status, 200);
    t.like((await whoami(byNew)).user, { email: 'after@example.com' });
    const byOld = await login(new Client(r.app.url), 'before@example.com', PASSWORD);
    t.is(byOld.status, 403);
    t.is(await codeOf(byOld), 'bad_credentials');
    t.is((await whoami(other)).status, 401, "the account's other session ended");
    t.is((await whoami(r.client)).status, 201, 'the session that asked goes on');
  });

  test(`${name}: delete (fresh): every session ends, the address can sign up again`, async (t) => {
    const r = await rig(t);
    const first = await signUpAndConfirm(r, 'gone@example.com');
    const other = await secondSession(t, r, 'gone@example.com');
    const replay = copyOf(r, r.client);
    const res = await r.client.fetch('/auth/local/account', {
      method: 'DELETE',
      headers: { origin: new URL(r.app.url).origin, ...r.client.xsrf() },
    });
    t.is(res.status, 200, await res.clone().text());
    pastTokenDuration(r);
    t.is((await whoami(replay)).status, 401, "the deleting browser's old cookie is refused");
    t.is((await whoami(other)).status, 401, 'the other session ended');
    t.is((await login(new Client(r.app.url), 'gone@example.com', PASSWORD)).status, 403, 'no account to log in to');
    const again = await signUpAndConfirm(r, 'gone@example.com', NEW_PASSWORD, new Client(r.app.url));
    t.regex(String(again.id), /^local_acct_/);
    t.not(again.id, first.id, 'a new account, a new user id');
  });

  test(`${name}: the second factor is asked after a reset: login with the new password answers mfa_required`, async (t) => {
    const r = await rig(t, true);
    await signUpAndConfirm(r, 'mfa@example.com');
    const otpauthUrl = await enrolTotp(r);
    await post(new Client(r.app.url), '/auth/local/reset', { email: 'mfa@example.com' });
    const link = linkIn(await r.smtp.next());
    const done = await post(new Client(r.app.url), '/auth/local/reset/confirm', {
      token: tokenOf(link),
      password: NEW_PASSWORD,
    });
    t.is(done.status, 200, await done.clone().text());
    const c = new Client(r.app.url);
    const res = await login(c, 'mfa@example.com', NEW_PASSWORD);
    t.is(res.status, 200);
    t.like(await res.json(), { mfa_required: true });
    t.false(c.jar.has('JWT'), 'no session before the second step');
    r.clock.advance(30_000);
    const verified = await c.fetch('/auth/mfa/verify', {
      method: 'POST',
      json: { code: appCode(otpauthUrl, r.clock()) },
    });
    t.is(verified.status, 200, await verified.clone().text());
    t.deepEqual(decodeJwt(c.jar.get('JWT')!).amr, ['pwd', 'otp', 'mfa']);
  });
}
