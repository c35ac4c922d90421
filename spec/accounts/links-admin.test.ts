/**
 * Account linking beyond the owner's own routes: the last way in kept when a provider is no longer configured
 * (two app instances in turn on the same LMDB files) and a passkey counted as one; an account's deletion freeing its
 * identities; the operator's `auth.accounts.links/link/unlink` and their events.
 */
import test from 'ava';
import type { AuthEvent } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';
import { linkedProviders, linkThrough, linksRig, providerLogin, sessionOf } from './links-rig.js';
import { codeOf, post, signUpAndConfirm } from './rig.js';

/** Registers a passkey for `c`'s session through the passkey routes, as a browser's page would. */
async function addPasskey(c: Client, authenticator: SoftAuthenticator): Promise<void> {
  const headers = { origin: new URL(c.base).origin, ...c.xsrf() };
  const options = await c.fetch('/auth/passkey/register/options', { method: 'POST', headers });
  if (options.status !== 200) throw new Error(`register/options: ${options.status} ${await options.text()}`);
  const made = authenticator.register((await options.json()) as { challenge: string; user: { id: string } });
  const res = await c.fetch('/auth/passkey/register', { method: 'POST', headers, json: made });
  if (res.status >= 300) throw new Error(`register: ${res.status} ${await res.text()}`);
}

test('the last way in is kept: with the account’s own provider gone, its one linked identity stays until a passkey is added', async (t) => {
  const dir = await tempDir(t);
  const stores = { accounts: { store: `lmdb://${dir}/accounts` }, service: { stateStore: `lmdb://${dir}/state` } };
  const passkey = { kind: 'passkey', rpName: 'links tests' };
  const first = await linksRig(t, { ...stores, extraProviders: [passkey] });
  const c = new Client(first.app.url);
  await providerLogin(first, c, 'dev', 'hal');
  t.is(sessionOf(c).id, 'hal');
  t.is((await linkThrough(first, c, 'corp', 'hal-corp')).status, 303);
  await first.app.close();

  // The same stores, without the dev provider: hal's own identity is no way in any more.
  const second = await linksRig(t, { ...stores, extraProviders: [passkey], dev: false });
  const b = new Client(second.app.url);
  await providerLogin(second, b, 'corp', 'hal-corp');
  t.is(sessionOf(b).id, 'hal', 'the linked identity logs in as the account, from the links kept on disk');
  t.deepEqual(await linkedProviders(b), ['dev', 'corp']);
  const refused = await post(b, '/auth/links/corp', undefined, 'DELETE');
  t.is(refused.status, 409);
  t.is(await codeOf(refused), 'last_login_method');
  t.deepEqual(await linkedProviders(b), ['dev', 'corp'], 'nothing changed');

  const authenticator = new SoftAuthenticator(second.app.url, '127.0.0.1');
  await addPasskey(b, authenticator);
  const unlinked = await post(b, '/auth/links/corp', undefined, 'DELETE');
  t.is(unlinked.status, 200, 'a passkey is a way in');
  t.deepEqual(await linkedProviders(b), ['dev']);
});

test('an account’s deletion frees its linked identities: each logs in as an account of its own again', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'ida@example.com');
  const account = sessionOf(r.client);
  await linkThrough(r, r.client, 'dev', 'ida-gh');
  const deleted = await post(r.client, '/auth/local/account', undefined, 'DELETE');
  t.is(deleted.status, 200, await deleted.clone().text());
  const browser = new Client(r.app.url);
  await providerLogin(r, browser, 'dev', 'ida-gh');
  t.not(sessionOf(browser).id, account.id);
  t.is(sessionOf(browser).id, 'ida-gh');
});

test('auth.accounts.links/link/unlink: an operator links and unlinks by user id, an identity in use is refused, each tells its event', async (t) => {
  const r = await linksRig(t);
  const events: AuthEvent[] = [];
  for (const type of ['identity_linked', 'identity_unlinked'] as const) r.app.auth.on(type, (e) => events.push(e));
  await signUpAndConfirm(r, 'joe@example.com');
  const account = sessionOf(r.client);
  const admin = r.app.auth.accounts!;

  await admin.link(account.id, { subject: 'joe-gh', provider: 'dev', name: 'joe-gh' });
  t.like(await admin.links(account.id), [
    { provider: 'local', primary: true },
    { provider: 'dev', name: 'joe-gh', primary: false },
  ]);
  const browser = new Client(r.app.url);
  await providerLogin(r, browser, 'dev', 'joe-gh');
  t.is(sessionOf(browser).id, account.id, 'the identity the operator linked logs in as the account');

  const other = new Client(r.app.url);
  await providerLogin(r, other, 'dev', 'kim');
  const inUse = await admin.link(account.id, { subject: 'kim', provider: 'dev' }).then(
    () => 'linked',
    (err: { code?: string }) => err.code,
  );
  t.is(inUse, 'identity_in_use');

  await admin.link(account.id, { subject: 'joe-gh', provider: 'dev' }); // linked already: no event
  await t.throwsAsync(admin.link(account.id, { subject: '', provider: 'dev' }), {
    instanceOf: TypeError,
    message: /identity\.subject/,
  });
  await t.throwsAsync(admin.link('', { subject: 'x', provider: 'dev' }), { instanceOf: TypeError, message: /userId/ });
  await admin.unlink(account.id, 'dev');
  t.like(await admin.links(account.id), [{ provider: 'local' }]);
  const missing = await admin.unlink(account.id, 'dev').then(
    () => 'unlinked',
    (err: { code?: string }) => err.code,
  );
  t.is(missing, 'link_not_found');
  // Listeners run after the call is done (setImmediate): one turn more and every one has run.
  await new Promise((resolve) => setImmediate(resolve));
  t.like(events, [
    { type: 'identity_linked', userId: account.id, provider: 'dev', by: 'admin' },
    { type: 'identity_unlinked', userId: account.id, provider: 'dev', by: 'admin' },
  ]);
});
