/**
 * The `password` kind's routes over real HTTP and SMTP, beyond the flows: what the store holds for a
 * password, the policy's refusals (weak, breached, an address that is none), sign-up turned off, the links'
 * pages (an unconfirmed account's login: signup-login.test.ts), and the per-address limits.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lmdbAccountStore } from '../../lib/accounts/lmdb-store.js';
import { memoryAccountStore } from '../../lib/accounts/memory-store.js';
import type { Account, AccountStore, StoredAccount } from '../../lib/accounts/store.js';
import { Client, serve } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import {
  accountsRig,
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
  type AccountsRig,
} from './rig.js';

const hex = (algorithm: string, text: string) => createHash(algorithm).update(text).digest('hex');

/** An LMDB account store the test passes as an object (so it can read what the app wrote); closed at teardown. */
function lmdbStore(t: ExecutionContext): AccountStore {
  const store = lmdbAccountStore(join(tempDir(t), 'accounts'));
  t.teardown(() => store.close());
  return store;
}

test('the store holds a scrypt PHC string: never the password, nor its plain SHA-1 or SHA-256 hex', async (t) => {
  const store = lmdbStore(t);
  const r = await accountsRig(t, { store });
  await signUpAndConfirm(r, 'hash@example.com');
  const stored = (await store.findByEmail('hash@example.com'))!;
  const hash = stored.passwordHash!;
  t.regex(hash, /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  const plain = [PASSWORD, hex('sha1', PASSWORD), hex('sha256', PASSWORD)];
  for (const p of plain) {
    t.not(hash, p);
    t.false(hash.toLowerCase().includes(p.toLowerCase()), `the hash does not contain ${p}`);
  }
  const record = JSON.stringify(stored).toLowerCase();
  for (const p of plain) t.false(record.includes(p.toLowerCase()), 'nor does any field of the record');
});

/**
 * A store that lost the hash: every read hands back the plain password where the hash belongs (what a
 * careless users table or migration would hold).
 */
function plainPasswordStore(inner: AccountStore, password: string): AccountStore {
  const swap = (a: StoredAccount | undefined) => a && { ...a, passwordHash: password };
  return {
    create: (a: Account) => inner.create(a),
    get: async (id) => swap(await inner.get(id)),
    findByEmail: async (email) => swap(await inner.findByEmail(email)),
    update: (a, rev) => inner.update(a, rev),
    delete: (id, rev) => inner.delete(id, rev),
    list: (page) => inner.list(page),
    close: () => inner.close(),
  };
}

test('the hash check broken (the store hands back the plain password as the hash): the password no longer logs in', async (t) => {
  const inner = memoryAccountStore();
  const r = await accountsRig(t, { store: plainPasswordStore(inner, PASSWORD) });
  await r.app.auth.accounts!.create({ email: 'plain@example.com', password: PASSWORD, confirmed: true });
  const res = await login(r.client, 'plain@example.com', PASSWORD);
  t.is(res.status, 403, 'a stored value equal to the password is no hash: never compared as one');
  t.is(await codeOf(res), 'bad_credentials');
  t.false(r.client.jar.has('JWT'));
  t.true((await inner.findByEmail('plain@example.com'))!.passwordHash!.startsWith('$scrypt$'), 'underneath, a hash');
});

test('a store that would write the plain password is refused: the sign-up fails and no account is made', async (t) => {
  const inner = memoryAccountStore();
  const plainWriter: AccountStore = {
    ...plainPasswordStore(inner, PASSWORD),
    create: (a) => inner.create({ ...a, passwordHash: PASSWORD }),
    get: (id) => inner.get(id),
    findByEmail: (email) => inner.findByEmail(email),
  };
  const r = await accountsRig(t, { store: plainWriter });
  const res = await post(r.client, '/auth/local/signup', { email: 'plain@example.com', password: PASSWORD });
  t.is(res.status, 500);
  t.is(await inner.findByEmail('plain@example.com'), undefined);
});

test('a weak password at sign-up: 400 weak_password, no account, no mail', async (t) => {
  const store = lmdbStore(t);
  const r = await accountsRig(t, { store });
  for (const password of ['short', 'weak@example.com', 'WEAK', 'x'.repeat(257)]) {
    const res = await post(r.client, '/auth/local/signup', { email: 'weak@example.com', password });
    t.is(res.status, 400, password);
    t.is(await codeOf(res), 'weak_password', password);
  }
  t.is(await store.findByEmail('weak@example.com'), undefined);
  t.is(r.smtp.received.length, 0);
});

test('a weak password at reset/confirm: 400 weak_password, and the link still works afterwards', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'again@example.com');
  await post(r.client, '/auth/local/reset', { email: 'again@example.com' });
  const token = tokenOf(linkIn(await r.smtp.next()));
  const weak = await post(new Client(r.app.url), '/auth/local/reset/confirm', { token, password: 'short' });
  t.is(weak.status, 400);
  t.is(await codeOf(weak), 'weak_password');
  t.is((await login(new Client(r.app.url), 'again@example.com', PASSWORD)).status, 200, 'the password is unchanged');
  const good = await post(new Client(r.app.url), '/auth/local/reset/confirm', { token, password: 'long enough now' });
  t.is(good.status, 200, 'the link was not spent by the refusal');
  t.is((await login(new Client(r.app.url), 'again@example.com', 'long enough now')).status, 200);
});

test('an address that is not one plain address: 400 invalid_email at sign-up and at reset, nothing sent', async (t) => {
  const r = await accountsRig(t);
  for (const email of ['not an address', 'Ada <ada@example.com>', 'a@b@example.com', '']) {
    for (const [path, body] of [
      ['/auth/local/signup', { email, password: PASSWORD }],
      ['/auth/local/reset', { email }],
    ] as const) {
      const res = await post(r.client, path, body);
      t.is(res.status, 400, `${path} ${email}`);
      t.is(await codeOf(res), 'invalid_email', `${path} ${email}`);
    }
  }
  t.is(r.smtp.received.length, 0);
});

test('signup: false: 403 signup_disabled; an account an operator made still logs in', async (t) => {
  const r = await accountsRig(t, { provider: { signup: false } });
  const res = await post(r.client, '/auth/local/signup', { email: 'self@example.com', password: PASSWORD });
  t.is(res.status, 403);
  t.is(await codeOf(res), 'signup_disabled');
  await r.app.auth.accounts!.create({ email: 'made@example.com', password: PASSWORD, confirmed: true });
  t.is((await login(r.client, 'made@example.com', PASSWORD)).status, 200);
});

test("the confirmation link's GET: a page with a button and no login; once spent, the GET shows the dead-link page", async (t) => {
  const r = await accountsRig(t);
  await post(r.client, '/auth/local/signup', { email: 'page@example.com', password: PASSWORD });
  const link = linkIn(await r.smtp.next());
  const browser = new Client(r.app.url);
  const page = await browser.fetch(link, { headers: { accept: 'text/html' } });
  t.is(page.status, 200);
  const html = await page.text();
  t.regex(html, /<button type="submit">Confirm<\/button>/);
  t.is(formOf(html).fields.token, tokenOf(link));
  t.deepEqual(browser.lastCookies, [], 'no cookie: opening the link logs nobody in');
  t.is((await login(new Client(r.app.url), 'page@example.com', PASSWORD)).status, 403, 'nor confirms the address');
  t.is((await post(new Client(r.app.url), '/auth/local/confirm', { token: tokenOf(link) })).status, 200);
  const spent = await browser.fetch(link, { headers: { accept: 'text/html' } });
  t.is(spent.status, 403);
  t.regex(spent.headers.get('content-type') ?? '', /^text\/html/);
  const dead = await spent.text();
  t.regex(dead, /Link already used/);
  t.notRegex(dead, /<button/, 'no button to press on a spent link');
});

test('per-address limit: the request over it is 429 with Retry-After, for sign-up and for reset, whatever the address', async (t) => {
  const r = await accountsRig(t, { provider: { rateLimit: { perAddress: 2, perIP: 100 } } });
  await r.app.auth.accounts!.create({ email: 'has@example.com', password: PASSWORD, confirmed: true });
  for (const [path, body] of [
    ['/auth/local/signup', (email: string) => ({ email, password: PASSWORD })],
    ['/auth/local/reset', (email: string) => ({ email })],
  ] as const) {
    for (const email of ['has@example.com', 'none@example.com']) {
      for (let i = 0; i < 2; i++) t.is((await post(r.client, path, body(email))).status, 202, `${path} ${email} ${i}`);
      const over = await post(r.client, path, body(email));
      t.is(over.status, 429, `${path} ${email}: the third`);
      t.is(await codeOf(over), 'rate_limited');
      t.regex(over.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${path} ${email}: Retry-After in seconds`);
    }
    const other = await post(r.client, path, body('third@example.com'));
    t.is(other.status, 202, `${path}: another address is not held back`);
  }
});

/** A Pwned Passwords range API stand-in on 127.0.0.1 that lists `breached` (answering 503 once `down` is set). */
async function rangeApi(t: ExecutionContext, breached: string) {
  const state = { down: false, asked: [] as string[] };
  const sha = hex('sha1', breached).toUpperCase();
  const api = await serve((req, res) => {
    state.asked.push(req.url ?? '');
    if (state.down) return void res.writeHead(503).end('down');
    const prefix = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? '')?.[1];
    const lines = prefix && sha.startsWith(prefix) ? [`${sha.slice(5)}:42`] : [];
    res
      .writeHead(200, { 'content-type': 'text/plain' })
      .end([...lines, '0018A45C4D1DEF81644B54AB7F969B88D65:0'].join('\r\n'));
  });
  t.teardown(() => api.close());
  return { api, state };
}

test("breached: 'hibp' with a stand-in range API: a listed password is 400 weak_password; the API down is 503 breach_check_unavailable", async (t) => {
  const { api, state } = await rangeApi(t, 'P@ssw0rd-from-a-leak');
  const r: AccountsRig = await accountsRig(t, { provider: { breached: 'hibp', hibpUrl: api.url } });
  const listed = await post(r.client, '/auth/local/signup', {
    email: 'b@example.com',
    password: 'P@ssw0rd-from-a-leak',
  });
  t.is(listed.status, 400);
  t.is(await codeOf(listed), 'weak_password');
  t.is(
    state.asked.at(-1),
    `/range/${hex('sha1', 'P@ssw0rd-from-a-leak').toUpperCase().slice(0, 5)}`,
    'five hex digits',
  );
  t.is((await post(r.client, '/auth/local/signup', { email: 'b@example.com', password: PASSWORD })).status, 202);
  state.down = true;
  const down = await post(r.client, '/auth/local/signup', { email: 'c@example.com', password: PASSWORD });
  t.is(down.status, 503);
  t.is(await codeOf(down), 'breach_check_unavailable');
});

test('breached as a function: true refuses the password (400 weak_password), a rejection is 503 breach_check_unavailable', async (t) => {
  let failing = false;
  const breached = (password: string) => {
    if (failing) return Promise.reject(new Error('the list is away'));
    return password === 'known-to-be-leaked';
  };
  const r = await accountsRig(t, { provider: { breached } });
  const leaked = await post(r.client, '/auth/local/signup', { email: 'f@example.com', password: 'known-to-be-leaked' });
  t.is(leaked.status, 400);
  t.is(await codeOf(leaked), 'weak_password');
  t.is((await post(r.client, '/auth/local/signup', { email: 'f@example.com', password: PASSWORD })).status, 202);
  failing = true;
  const away = await post(r.client, '/auth/local/signup', { email: 'g@example.com', password: PASSWORD });
  t.is(away.status, 503);
  t.is(await codeOf(away), 'breach_check_unavailable');
});

test("the reset link in a browser: the form's page; a refused password shows the form again (400); a good one, a page; then the link's page is dead", async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'browser@example.com');
  await post(new Client(r.app.url), '/auth/local/reset', { email: 'browser@example.com' });
  const link = linkIn(await r.smtp.next());
  const browser = new Client(r.app.url);
  const html = { accept: 'text/html', origin: new URL(r.app.url).origin };
  const page = await browser.fetch(link, { headers: html });
  t.is(page.status, 200);
  const { action, fields } = formOf(await page.text());
  const submit = (password: string) =>
    browser.fetch(new URL(action, link).href, { method: 'POST', headers: html, form: { ...fields, password } });
  const weak = await submit('short');
  t.is(weak.status, 400);
  t.regex(weak.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await weak.text(), /role="alert"[\s\S]*too_short[\s\S]*<form/, 'the problem, and the form again');
  const done = await submit('a good new passphrase');
  t.is(done.status, 200);
  const donePage = await done.text();
  t.regex(donePage, /Password changed/);
  t.true(donePage.includes(`<a href="${r.app.url}/">`), 'the way back to the site');
  t.is((await login(new Client(r.app.url), 'browser@example.com', 'a good new passphrase')).status, 200);
  const dead = await browser.fetch(link, { headers: html });
  t.is(dead.status, 403);
  const deadPage = await dead.text();
  t.regex(deadPage, /Link already used/, 'spent, though its new password has changed the account too');
  t.notRegex(deadPage, /<form method="post"/, 'no form on a spent link');
});

test("the new address's link in a browser: its page, whose button applies the change and says so (no login)", async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'old@example.com');
  t.is((await post(r.client, '/auth/local/email', { email: 'new@example.com' })).status, 202);
  const link = linkIn((await mailsTo(r, 2)).get('new@example.com')!);
  const browser = new Client(r.app.url);
  const html = { accept: 'text/html', origin: new URL(r.app.url).origin };
  const page = await browser.fetch(link, { headers: html });
  t.is(page.status, 200);
  const text = await page.text();
  t.regex(text, /Confirm your new address/);
  const { action, fields } = formOf(text);
  const done = await browser.fetch(new URL(action, link).href, { method: 'POST', headers: html, form: fields });
  t.is(done.status, 200);
  t.regex(done.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await done.text(), /Address changed/);
  t.false(browser.jar.has('JWT'), 'the link changes the address, it logs nobody in');
  t.is((await login(new Client(r.app.url), 'new@example.com', PASSWORD)).status, 200);
});

test('links expire: a confirmation link after 24 hours, a reset link after 1 hour (403 confirmation_expired)', async (t) => {
  const r = await accountsRig(t);
  await signUpAndConfirm(r, 'known@example.com');
  await post(new Client(r.app.url), '/auth/local/signup', { email: 'slow@example.com', password: PASSWORD });
  const confirmToken = tokenOf(linkIn(await r.smtp.next()));
  await post(new Client(r.app.url), '/auth/local/reset', { email: 'known@example.com' });
  const resetToken = tokenOf(linkIn(await r.smtp.next()));
  const redeem = {
    confirm: () => post(new Client(r.app.url), '/auth/local/confirm', { token: confirmToken }),
    reset: () =>
      post(new Client(r.app.url), '/auth/local/reset/confirm', { token: resetToken, password: 'fresh one!' }),
  };
  r.clock.advance(60 * 60_000 + 1000);
  const lateReset = await redeem.reset();
  t.is(lateReset.status, 403, 'the reset link, past its hour');
  t.is(await codeOf(lateReset), 'confirmation_expired');
  r.clock.advance(23 * 60 * 60_000 - 2000);
  t.is((await redeem.confirm()).status, 200, 'the confirmation link, a second before its 24 hours are up');
  await post(new Client(r.app.url), '/auth/local/signup', { email: 'slower@example.com', password: PASSWORD });
  const second = tokenOf(linkIn(await r.smtp.next()));
  r.clock.advance(24 * 60 * 60_000 + 1000);
  const lateConfirm = await post(new Client(r.app.url), '/auth/local/confirm', { token: second });
  t.is(lateConfirm.status, 403, 'the confirmation link, past its 24 hours');
  t.is(await codeOf(lateConfirm), 'confirmation_expired');
});

test('delete: the account goes with its second factor (TOTP), and the address signs up again without one', async (t) => {
  const r = await accountsRig(t, { mfa: true });
  const me = await signUpAndConfirm(r, 'mfa-gone@example.com');
  await enrolTotp(r);
  const mfa = r.app.auth.mfa!;
  t.true((await mfa.status(String(me.id))).totp, 'TOTP is on');
  const gone = await r.client.fetch('/auth/local/account', {
    method: 'DELETE',
    headers: { origin: new URL(r.app.url).origin, ...r.client.xsrf() },
  });
  t.is(gone.status, 200);
  t.like(await mfa.status(String(me.id)), { stored: false, totp: false }, 'nothing of it is left');
  const again = await signUpAndConfirm(r, 'mfa-gone@example.com', PASSWORD, new Client(r.app.url));
  const login2 = await login(new Client(r.app.url), 'mfa-gone@example.com', PASSWORD);
  t.is(login2.status, 200);
  t.is(((await login2.json()) as { id?: string }).id, String(again.id), 'a login of the new account, no second step');
});
