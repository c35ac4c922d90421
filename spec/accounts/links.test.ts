/**
 * Account linking (issue #48) over real HTTP with real peers: the dev OAuth2 server (GitHub-like), oidc-provider
 * (an OpenID provider), the app's own password accounts on a real SMTP server. A link is started by a fresh session
 * with `?link=1`; from then on a login through the identity is the account's user; unlinking keeps a way in; an
 * identity is linked to one account only.
 */
import test from 'ava';
import { Client } from '../helpers/http.js';
import { startFakeBotApi } from '../helpers/telegram.js';
import { ALICE, SUCCESS, telegramEntry } from '../telegram/fixtures.js';
import { startLogin } from '../oauth2/fixtures.js';
import { linkedProviders, linkThrough, linksRig, providerLogin, sessionOf } from './links-rig.js';
import { codeOf, enrolTotp, post, signUpAndConfirm, whoami } from './rig.js';

test('a GitHub-like and an OpenID identity linked to a password account: each logs in as the account, with its provider', async (t) => {
  const r = await linksRig(t);
  const me = await signUpAndConfirm(r, 'ann@example.com');
  const account = sessionOf(r.client);

  const dev = await linkThrough(r, r.client, 'dev', 'ann-gh', '/settings');
  t.is(dev.status, 303, await dev.clone().text());
  t.is(dev.headers.get('location'), `${r.app.url}/settings`, 'back to from');
  t.is(sessionOf(r.client).id, account.id, 'the linking session goes on, as the account');
  const corp = await linkThrough(r, r.client, 'corp', 'ann-corp');
  t.is(corp.status, 303, await corp.clone().text());
  t.deepEqual(await linkedProviders(r.client), ['local', 'dev', 'corp']);

  // Each link ended the account's other sessions issued up to its millisecond: the logins below come a
  // second later on the rig's clock, as they would in a browser (one in that very millisecond is refused).
  r.clock.advance(1000);
  for (const [provider, who] of [
    ['dev', 'ann-gh'],
    ['corp', 'ann-corp'],
  ] as const) {
    const browser = new Client(r.app.url);
    const res = await providerLogin(r, browser, provider, who);
    t.true(res.status < 400, `${provider}: ${res.status} ${await res.clone().text()}`);
    const session = sessionOf(browser);
    t.is(session.id, account.id, `${provider} logs in as the account`);
    t.is(session.name, me.name as string, "with the account's name");
    t.is(session.provider, provider, 'auth_provider is the way in');
    t.like(await whoami(browser), { status: 201, user: { id: account.id } });
  }
});

test('a link ends the account other sessions, keeps the one that linked; GET /auth/links lists each with its time', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'bea@example.com');
  const other = new Client(r.app.url);
  const logged = await post(other, '/auth/local/login', { user: 'bea@example.com', passwd: 'correct horse battery' });
  t.is(logged.status, 200);
  t.is((await whoami(other)).status, 201);

  t.is((await linkThrough(r, r.client, 'dev', 'bea-gh')).status, 303);
  const linkedAt = new Date(r.clock()).toISOString();
  // Past the token's life: each session refreshes, which is when an ended one is refused.
  r.clock.advance(15 * 60_000 + 1000);
  t.is((await whoami(r.client)).status, 201, 'the linking session is kept');
  t.is((await whoami(other)).status, 401, 'the other session ended');
  const listed = (await (await r.client.fetch('/auth/links', { headers: r.client.xsrf() })).json()) as Array<
    Record<string, unknown>
  >;
  t.like(listed[0], { provider: 'local', primary: true, name: 'bea@example.com' });
  t.like(listed[1], { provider: 'dev', primary: false, name: 'bea-gh', linked: linkedAt });
});

test('an identity that logged in on its own before is in use: 409 identity_in_use (a page for a browser, JSON for a call), nothing changes', async (t) => {
  const r = await linksRig(t);
  const alone = new Client(r.app.url);
  t.true((await providerLogin(r, alone, 'dev', 'cat')).status < 400);
  t.is(sessionOf(alone).id, 'cat', 'a first login is an account of its own, under the id it has today');

  await signUpAndConfirm(r, 'cat@example.com');
  const page = await linkThrough(r, r.client, 'dev', 'cat');
  t.is(page.status, 409);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(await page.text(), /identity_in_use/);

  const start = await r.client.fetch('/auth/dev/login?link=1', { headers: r.client.xsrf() });
  const { devAuthorize } = await import('../oauth2/fixtures.js');
  const json = await r.client.fetch(await devAuthorize(new URL(start.headers.get('location')!), 'cat'));
  t.is(json.status, 409);
  t.is(await codeOf(json), 'identity_in_use');

  t.deepEqual(await linkedProviders(r.client), ['local'], 'nothing linked');
  const again = new Client(r.app.url);
  await providerLogin(r, again, 'dev', 'cat');
  t.is(sessionOf(again).id, 'cat', 'the identity still logs in as itself');
});

test('linking needs a fresh full login: a stale one 401 reauth_required, none 401, a cross-site navigation 401 xsrf_mismatch', async (t) => {
  const r = await linksRig(t);
  const fresh = new Client(r.app.url);
  t.is(await codeOf(await fresh.fetch('/auth/dev/login?link=1')), 'no_token');

  await signUpAndConfirm(r, 'dan@example.com');
  const cross = await r.client.fetch('/auth/dev/login?link=1', { headers: { 'sec-fetch-site': 'cross-site' } });
  t.is(cross.status, 401);
  t.is(await codeOf(cross), 'xsrf_mismatch', 'another site cannot start a link');
  const bad = await r.client.fetch('/auth/dev/login?link=yes', { headers: r.client.xsrf() });
  t.is(bad.status, 400);

  r.clock.advance(5 * 60_000 + 1000);
  const stale = await r.client.fetch('/auth/dev/login?link=1', {
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  t.is(stale.status, 401);
  t.is(await codeOf(stale), 'reauth_required');
  t.deepEqual(await linkedProviders(r.client), ['local']);
});

test('a link intent is for the session that asked: after a logout in that browser, the callback is a login, not a link', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'eve@example.com');
  const start = await r.client.fetch('/auth/dev/login?link=1', { headers: r.client.xsrf() });
  t.is(start.status, 302);
  t.true(r.client.jar.has('authkoa-link'), 'the intent cookie');
  const { devAuthorize } = await import('../oauth2/fixtures.js');
  const callback = await devAuthorize(new URL(start.headers.get('location')!), 'mallory');
  await r.client.fetch('/auth/logout', { headers: r.client.xsrf() });
  t.false(r.client.jar.has('JWT'));
  const res = await r.client.fetch(callback);
  t.true(res.status < 400, await res.clone().text());
  t.is(sessionOf(r.client).id, 'mallory', "a login of mallory's own, not a link to eve's account");
});

test('DELETE /auth/links/<provider>: unlinked (fresh), the identity is its own again; the account’s own identity stays', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'fay@example.com');
  const account = sessionOf(r.client);
  await linkThrough(r, r.client, 'dev', 'fay-gh');

  const own = await post(r.client, '/auth/links/local', undefined, 'DELETE');
  t.is(own.status, 409);
  t.is(await codeOf(own), 'identity_is_account');
  const missing = await post(r.client, '/auth/links/corp', undefined, 'DELETE');
  t.is(missing.status, 404);
  t.is(await codeOf(missing), 'link_not_found');

  r.clock.advance(6 * 60_000);
  const stale = await post(r.client, '/auth/links/dev', undefined, 'DELETE');
  t.is(await codeOf(stale), 'reauth_required');
  t.deepEqual(await linkedProviders(r.client), ['local', 'dev']);

  const again = await post(r.client, '/auth/local/login', { user: 'fay@example.com', passwd: 'correct horse battery' });
  t.is(again.status, 200);
  const gone = await post(r.client, '/auth/links/dev', undefined, 'DELETE');
  t.is(gone.status, 200, await gone.clone().text());
  t.deepEqual(
    ((await gone.json()) as Array<{ provider: string }>).map((l) => l.provider),
    ['local'],
  );

  const browser = new Client(r.app.url);
  await providerLogin(r, browser, 'dev', 'fay-gh');
  t.not(sessionOf(browser).id, account.id, 'the unlinked identity no longer logs in as the account');
  t.is(sessionOf(browser).id, 'fay-gh');
});

test('a linked identity logs in with the account’s second factor', async (t) => {
  const r = await linksRig(t, { mfa: true });
  await signUpAndConfirm(r, 'gus@example.com');
  await enrolTotp(r);
  // Turning TOTP on ended nothing here, but a link needs a full login: the session is one.
  t.is((await linkThrough(r, r.client, 'dev', 'gus-gh')).status, 303);

  const browser = new Client(r.app.url);
  const url = await startLogin(browser, 'dev');
  const { devAuthorize } = await import('../oauth2/fixtures.js');
  const res = await browser.fetch(await devAuthorize(url, 'gus-gh'));
  t.is(res.status, 303);
  t.regex(res.headers.get('location') ?? '', /\/auth\/mfa\/page/, 'the second step, the account’s');
  t.false(browser.jar.has('JWT'), 'no session before it');
});

test('a Telegram identity is linked the same way: ?link=1 on the request for the bot token, the link made when it completes', async (t) => {
  const api = await startFakeBotApi();
  t.teardown(() => api.close());
  const telegram = telegramEntry(api);
  const r = await linksRig(t, { extraProviders: [telegram] });
  await signUpAndConfirm(r, 'tom@example.com');
  const account = sessionOf(r.client);
  const asked = await r.client.fetch('/auth/telegram/login?link=1', { headers: r.client.xsrf() });
  t.is(asked.status, 200, await asked.clone().text());
  const { token } = (await asked.json()) as { token: string };
  api.pressStart(ALICE, token);
  t.is((await api.nextMessage(ALICE.id)).text, SUCCESS);
  const done = await r.client.fetch(`/auth/telegram/login?token=${token}`, { headers: r.client.xsrf() });
  t.is(done.status, 200, await done.clone().text());
  t.like(await done.json(), { id: account.id }, 'answered as the account, still logged in as it');
  t.deepEqual(await linkedProviders(r.client), ['local', 'telegram']);

  const phone = new Client(r.app.url);
  const again = (await (await phone.fetch('/auth/telegram/login')).json()) as { token: string };
  api.pressStart(ALICE, again.token);
  await api.nextMessage(ALICE.id, 1);
  t.is((await phone.fetch(`/auth/telegram/login?token=${again.token}`)).status, 200);
  t.is(sessionOf(phone).id, account.id, "Alice's Telegram logs in as the account");
});

test('DELETE /auth/links/<identity>: of two identities of one provider, the one named by its id is unlinked; the provider alone is ambiguous', async (t) => {
  const r = await linksRig(t);
  await signUpAndConfirm(r, 'hal@example.com');
  t.is((await linkThrough(r, r.client, 'dev', 'hal-work')).status, 303);
  t.is((await linkThrough(r, r.client, 'dev', 'hal-home')).status, 303);
  const listed = (await (await r.client.fetch('/auth/links', { headers: r.client.xsrf() })).json()) as Array<{
    id: string;
    provider: string;
    name?: string;
  }>;
  t.deepEqual(
    listed.map((l) => [l.provider, l.name]),
    [
      ['local', 'hal@example.com'],
      ['dev', 'hal-work'],
      ['dev', 'hal-home'],
    ],
  );

  const ambiguous = await post(r.client, '/auth/links/dev', undefined, 'DELETE');
  t.is(ambiguous.status, 409);
  t.is(await codeOf(ambiguous), 'link_ambiguous');
  t.is(
    ((await r.client.fetch('/auth/links', { headers: r.client.xsrf() }).then((x) => x.json())) as unknown[]).length,
    3,
  );

  const home = listed.find((l) => l.name === 'hal-home')!;
  const gone = await post(r.client, `/auth/links/${encodeURIComponent(home.id)}`, undefined, 'DELETE');
  t.is(gone.status, 200, await gone.clone().text());
  t.deepEqual(
    ((await gone.json()) as Array<{ name?: string }>).map((l) => l.name),
    ['hal@example.com', 'hal-work'],
    'hal-home went, hal-work stays',
  );
});
