/**
 * Never by email alone (issue #48): a first login whose provider reports a verified address equal to an account's
 * confirmed one makes no second account and logs into nobody's. With `accounts.trustEmail` naming the provider it
 * answers 409 `account_exists` and keeps an offer that only the account's own login, in the same browser, with
 * every factor, within 15 minutes, completes; without it, the identity is an account of its own. The provider is
 * oidc-provider on 127.0.0.1, reporting the addresses below.
 */
import test from 'ava';
import { sha1 } from '../../lib/user.js';
import { Client } from '../helpers/http.js';
import { linkedProviders, linksRig, providerLogin, sessionOf, type LinksRig } from './links-rig.js';
import { appCode, enrolTotp, login, PASSWORD, signUpAndConfirm } from './rig.js';

const ADDRESS = 'ann@example.com';

/** What oidc-provider reports for each login name: the account's address, and look-alikes of it. */
const CLAIMS = {
  ann: { email: ADDRESS, email_verified: true },
  'ann-case': { email: 'ANN@Example.COM', email_verified: true },
  'ann-unverified': { email: ADDRESS, email_verified: false },
  'ann-says-true': { email: ADDRESS, email_verified: 'true' },
  'ann-homoglyph': { email: 'аnn@example.com', email_verified: true }, // Cyrillic а
  'ann-fullwidth': { email: 'ａnn@example.com', email_verified: true },
  'ann-tag': { email: 'ann+x@example.com', email_verified: true },
  'ann-dot': { email: 'ann@example.com.', email_verified: true },
  'ann-dotted': { email: 'a.nn@example.com', email_verified: true },
};

async function rig(t: Parameters<typeof linksRig>[0], trust = true, mfa = false): Promise<LinksRig> {
  const r = await linksRig(t, { accounts: trust ? { trustEmail: ['corp'] } : {}, claims: CLAIMS, mfa });
  await signUpAndConfirm(r, ADDRESS);
  return r;
}

test('a trusted, verified, equal address: 409 account_exists, nobody logged in; the account’s login in that browser links it', async (t) => {
  const r = await rig(t);
  const account = sessionOf(r.client);
  const browser = new Client(r.app.url);
  const res = await providerLogin(r, browser, 'corp', 'ann');
  t.is(res.status, 409);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await res.text(), /account_exists/);
  t.false(browser.jar.has('JWT'), 'no session: not into the account, not into a new one');
  t.true(browser.jar.has('authkoa-link-offer'));

  t.is((await login(browser, ADDRESS, PASSWORD)).status, 200);
  t.is(sessionOf(browser).id, account.id);
  t.false(browser.jar.has('authkoa-link-offer'), 'spent');
  t.deepEqual(await linkedProviders(browser), ['local', 'corp']);

  const later = new Client(r.app.url);
  await providerLogin(r, later, 'corp', 'ann');
  t.is(sessionOf(later).id, account.id, 'from then on the identity logs in as the account');
});

test('case is no look-alike (accounts compare addresses lower-cased); an address in another case is offered too', async (t) => {
  const r = await rig(t);
  const res = await providerLogin(r, new Client(r.app.url), 'corp', 'ann-case');
  t.is(res.status, 409);
});

for (const who of [
  'ann-unverified',
  'ann-says-true',
  'ann-homoglyph',
  'ann-fullwidth',
  'ann-tag',
  'ann-dot',
  'ann-dotted',
] as const) {
  test(`${who}: ${JSON.stringify(CLAIMS[who])} is not the account’s verified address: an account of its own`, async (t) => {
    const r = await rig(t);
    const browser = new Client(r.app.url);
    const res = await providerLogin(r, browser, 'corp', who);
    t.true(res.status < 400, `${res.status} ${await res.clone().text()}`);
    t.is(sessionOf(browser).id, `corp_${sha1(who)}`, 'its own account, not the one with the address');
    t.false(browser.jar.has('authkoa-link-offer'), 'and no offer');
    t.deepEqual(await linkedProviders(r.client), ['local']);
  });
}

test('without trustEmail a verified, equal address is an account of its own: no offer, no link', async (t) => {
  const r = await rig(t, false);
  const browser = new Client(r.app.url);
  const res = await providerLogin(r, browser, 'corp', 'ann');
  t.true(res.status < 400);
  t.is(sessionOf(browser).id, `corp_${sha1('ann')}`);
  t.deepEqual(await linkedProviders(r.client), ['local']);
});

test('an offer is completed by nothing but the account’s login in the browser that got it, within 15 minutes', async (t) => {
  const r = await rig(t);
  const offered = new Client(r.app.url);
  t.is((await providerLogin(r, offered, 'corp', 'ann')).status, 409);

  // The owner logs in elsewhere: another browser holds no offer.
  t.is((await login(new Client(r.app.url), ADDRESS, PASSWORD)).status, 200);
  t.deepEqual(await linkedProviders(r.client), ['local']);

  // Another account's login in the offered browser leaves the offer as it was.
  const other = new Client(r.app.url);
  await signUpAndConfirm(r, 'bob@example.com', PASSWORD, other);
  const asBob = new Client(r.app.url);
  for (const [k, v] of offered.jar) asBob.jar.set(k, v);
  t.is((await login(asBob, 'bob@example.com', PASSWORD)).status, 200);
  t.deepEqual(await linkedProviders(asBob), ['local'], 'not linked to bob');

  r.clock.advance(15 * 60_000 + 1000);
  t.is((await login(offered, ADDRESS, PASSWORD)).status, 200);
  t.deepEqual(await linkedProviders(offered), ['local'], 'the offer died at 15 minutes');
});

test('with a second factor on the account, the offer is completed by the full login only', async (t) => {
  const r = await rig(t, true, true);
  const otpauthUrl = await enrolTotp(r);
  const browser = new Client(r.app.url);
  t.is((await providerLogin(r, browser, 'corp', 'ann')).status, 409);
  const first = await login(browser, ADDRESS, PASSWORD);
  t.deepEqual(await first.json(), { mfa_required: true, factors: ['totp', 'recovery'] });
  t.deepEqual(await linkedProviders(r.client), ['local'], 'a password alone links nothing');
  r.clock.advance(30_000);
  const second = await browser.fetch('/auth/mfa/verify', {
    method: 'POST',
    json: { code: appCode(otpauthUrl, r.clock()) },
    headers: { origin: r.app.url },
  });
  t.is(second.status, 200, await second.clone().text());
  t.deepEqual(await linkedProviders(browser), ['local', 'corp']);
});
