/**
 * Recovery ends everything (issue #60): a password reset revokes the account's personal tokens with its sessions
 * (`accounts.resetRevokes`, default both), and the owner is mailed a notice of the new password that lists the
 * identities linked to the account, with a link to review them: one linked while someone else held the account
 * would still log in as it. Over real HTTP, SMTP and, for the links, the dev OAuth2 server.
 */
import test from 'ava';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { bearer, loggedIn, newToken, tokensRig } from '../personal-tokens/rig.js';
import { linkThrough, linksRig } from './links-rig.js';
import { linkIn, login, PASSWORD, post, signUpAndConfirm, tokenOf, type AccountsRig } from './rig.js';

const NEW_PASSWORD = 'a brand new passphrase';

/** A reset of `email` through its mailed link, from a browser of its own: the new password set. */
async function resetPassword(r: AccountsRig, email: string, password = NEW_PASSWORD) {
  const asked = await post(new Client(r.app.url), '/auth/local/reset', { email });
  if (asked.status !== 202) throw new Error(`reset answered ${asked.status}: ${await asked.text()}`);
  const token = tokenOf(linkIn(await r.smtp.next()));
  const done = await post(new Client(r.app.url), '/auth/local/reset/confirm', { token, password });
  if (done.status !== 200) throw new Error(`reset/confirm answered ${done.status}: ${await done.text()}`);
}

test('a reset revokes the personal tokens made before it (401); one made after it works', async (t) => {
  const r = await tokensRig(t);
  const revoked: unknown[] = [];
  r.app.auth.on('token_revoked', (e) => void revoked.push(e));
  await loggedIn(r, 'ann@example.com');
  const before = await newToken(r.client, { name: 'before' });
  t.is((await bearer(r.app.url, '/api/me', before.token)).status, 200, 'live (and cached) before the reset');

  await resetPassword(r, 'ann@example.com');
  t.is((await bearer(r.app.url, '/api/me', before.token)).status, 401, 'refused at once after the reset');

  // The reset ended the sessions issued up to its millisecond: the new login comes a second later.
  r.clock.advance(1000);
  const browser = new Client(r.app.url);
  t.is((await login(browser, 'ann@example.com', NEW_PASSWORD)).status, 200);
  const after = await newToken(browser, { name: 'after' });
  t.is((await bearer(r.app.url, '/api/me', after.token)).status, 200, 'a token made after the reset works');
  await new Promise((resolve) => setImmediate(resolve)); // listeners run after the answer
  t.like(revoked, [{ type: 'token_revoked', tokenId: before.id, by: 'password_reset' }]);
});

test("resetRevokes: ['sessions']: a token made before a reset still works after it; the sessions still end", async (t) => {
  const r = await tokensRig(t, { service: { accounts: { store: 'memory://', resetRevokes: ['sessions'] } } });
  await loggedIn(r, 'bo@example.com');
  const before = await newToken(r.client, { name: 'before' });
  await resetPassword(r, 'bo@example.com');
  t.is((await bearer(r.app.url, '/api/me', before.token)).status, 200, 'the token survives');
  r.clock.advance(15 * 60_000 + 1000); // past the token's life: the session refreshes, when an ended one is refused
  t.is((await r.client.fetch('/api/me', { headers: r.client.xsrf() })).status, 401, 'the session ended');
});

test("resetRevokes: ['tokens']: the sessions outlive a reset, the tokens do not", async (t) => {
  const r = await tokensRig(t, { service: { accounts: { store: 'memory://', resetRevokes: ['tokens'] } } });
  await loggedIn(r, 'cy@example.com');
  const before = await newToken(r.client, { name: 'before' });
  await resetPassword(r, 'cy@example.com');
  t.is((await bearer(r.app.url, '/api/me', before.token)).status, 401, 'the token is revoked');
  r.clock.advance(15 * 60_000 + 1000);
  t.is((await r.client.fetch('/api/me', { headers: r.client.xsrf() })).status, 200, 'the session goes on');
});

test('accounts.resetRevokes: anything but a list of sessions and tokens is a TypeError naming it', (t) => {
  const base = {
    secret: 'recovery-options-secret-0123456789abcdef',
    url: 'http://localhost:8080',
    allowVolatileStores: true,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    providers: [{ kind: 'password', name: 'local', sender: () => undefined }],
  };
  const made = (resetRevokes: unknown) => () =>
    authKoa({ ...base, accounts: { store: 'memory://', resetRevokes } } as unknown as AuthKoaOptions);
  for (const value of [['sessions', 'passkeys'], 'tokens', [1], null])
    t.throws(made(value), { instanceOf: TypeError, message: /accounts\.resetRevokes/ }, JSON.stringify(value));
  t.notThrows(made([]), 'an empty list: a reset revokes nothing but the password');
});

test("after a reset the owner is mailed the account's linked identities and the link to review them", async (t) => {
  const r = await linksRig(t, { provider: { reviewLinksUrl: '/settings/logins' } });
  await signUpAndConfirm(r, 'dee@example.com');
  t.is((await linkThrough(r, r.client, 'dev', 'dee-gh')).status, 303);

  await resetPassword(r, 'dee@example.com');
  const notice = await r.smtp.next();
  t.deepEqual(notice.envelopeTo, ['dee@example.com']);
  t.is(notice.mail.subject, 'Your password was changed');
  const text = notice.mail.text ?? '';
  t.regex(text, /^- dev, linked \d{4}-\d\d-\d\d/m, 'the linked identity, by its provider');
  t.false(text.includes('dee-gh'), "not the identity's own name: it may be anyone's wording");
  t.true(text.includes(`${r.app.url}/settings/logins`), 'the review link');
  t.false(text.includes('token='), 'no link that acts');
});

test('a password change mails the notice too: no identity linked, and the review link defaults to the site', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'eve@example.com');
  const changed = await post(r.client, '/auth/local/password', { current: PASSWORD, password: NEW_PASSWORD });
  t.is(changed.status, 200);
  const text = (await r.smtp.next()).mail.text ?? '';
  t.regex(text, /No login of another provider is linked to the account/);
  t.true(text.includes(`${r.app.url}/\n`), 'the review link is the site');
});
