/**
 * RP-Initiated Logout 1.0 at the local server's `/logout` (its end_session_endpoint), driven by openid-client: a
 * hint naming the browser's sign-in ends it at once and sends the browser back; anything else is asked first.
 */
import test from 'ava';
import * as oidc from 'openid-client';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { Client } from '../helpers/http.js';
import { checker, form } from './fixtures.js';
import { LOGGED_OUT, signedIn, signInWith } from './logout-fixtures.js';
import { pemKey, relyingParty, RP, RP_REDIRECT, SPA, startProvider } from './openid-fixtures.js';

const RP_LOGOUT = { ...RP, postLogoutRedirectURIs: [LOGGED_OUT] };

async function setup(t: Parameters<typeof startProvider>[0]) {
  const { serverURL } = await startProvider(t, {}, { clients: [RP_LOGOUT, SPA] });
  const config = await relyingParty(serverURL, RP_LOGOUT);
  const browser = new Client(serverURL);
  const tokens = await signInWith(config, browser);
  return { serverURL, config, browser, tokens };
}

test('discovery names the end_session_endpoint and back-channel logout with sid; id_tokens carry the sid', async (t) => {
  const { serverURL, config, browser, tokens } = await setup(t);
  const meta = config.serverMetadata();
  t.is(meta.end_session_endpoint, `${serverURL}/logout`);
  t.is(meta.backchannel_logout_supported, true);
  t.is(meta.backchannel_logout_session_supported, true);
  t.true(meta.claims_supported!.includes('sid'));
  const sid = tokens.claims()!.sid;
  t.regex(String(sid), /^[\w-]{16,}$/);
  // A second client of the same sign-in session gets the same sid; another browser signs in to another session.
  const spa = await relyingParty(serverURL, SPA);
  t.is((await signInWith(spa, browser)).claims()!.sid, sid);
  t.not((await signInWith(spa, new Client(serverURL))).claims()!.sid, sid);
});

test('id_token_hint naming the signed-in session, a registered post_logout_redirect_uri and state: signed out at once, back with the state', async (t) => {
  const { config, browser, tokens } = await setup(t);
  const url = oidc.buildEndSessionUrl(config, {
    id_token_hint: tokens.id_token!,
    post_logout_redirect_uri: LOGGED_OUT,
    state: 'st-42',
  });
  const res = await browser.fetch(url.href);
  t.is(res.status, 302);
  t.is(res.headers.get('location'), `${LOGGED_OUT}?state=st-42`);
  t.false(await signedIn(config, browser));
  // The hint alone names the client: client_id may be left out.
  const tokens2 = await signInWith(config, browser);
  const bare = new URL(url.href);
  bare.searchParams.delete('client_id');
  bare.searchParams.set('id_token_hint', tokens2.id_token!);
  const again = await browser.fetch(bare.href);
  t.is(again.status, 302);
  t.false(await signedIn(config, browser));
});

test('an unregistered post_logout_redirect_uri is never redirected to, and nobody is signed out', async (t) => {
  const { config, browser, tokens } = await setup(t);
  for (const target of ['https://evil.example/', `${LOGGED_OUT}/`, RP_REDIRECT]) {
    const url = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: target });
    const res = await browser.fetch(url.href);
    t.is(res.status, 400, target);
    t.is(res.headers.get('location'), null);
    t.regex(await res.text(), /not registered/);
  }
  // Another client's registered URI is not this one's.
  const spa = await relyingParty(config.serverMetadata().issuer, SPA);
  const res = await browser.fetch(oidc.buildEndSessionUrl(spa, { post_logout_redirect_uri: LOGGED_OUT }).href);
  t.is(res.status, 400);
  t.is(res.headers.get('location'), null);
  t.true(await signedIn(config, browser), 'still signed in');
});

test('a hint that is no id_token of the server, or issued to another client than client_id, is refused', async (t) => {
  const { config, browser, tokens } = await setup(t);
  const tampered = tokens.id_token!.slice(0, -4) + (tokens.id_token!.endsWith('AAAA') ? 'BBBB' : 'AAAA');
  const base = config.serverMetadata().end_session_endpoint!;
  const bad = await browser.fetch(`${base}?${new URLSearchParams({ id_token_hint: tampered })}`);
  t.is(bad.status, 400);
  const other = await browser.fetch(
    `${base}?${new URLSearchParams({ id_token_hint: tokens.id_token!, client_id: 'spa' })}`,
  );
  t.is(other.status, 400);
  t.regex(await other.text(), /another client/);
  t.true(await signedIn(config, browser));
});

test('without a valid hint a confirmation page is asked first: only its POST with the CSRF token signs out', async (t) => {
  const { serverURL, config, browser } = await setup(t);
  const url = oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: LOGGED_OUT, state: 'st-7' });
  const page = await browser.fetch(url.href);
  t.is(page.status, 200);
  const csp = page.headers.get('content-security-policy')!;
  t.regex(csp, /frame-ancestors 'none'/);
  t.regex(csp, /default-src 'none'/);
  t.is(page.headers.get('x-frame-options'), 'DENY');
  const html = await page.text();
  t.false(/<script/i.test(html), 'no script');
  t.true(await signedIn(config, browser), 'the link alone signs nobody out');
  const { action, csrf } = form(html);
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
  );
  t.like(fields, { client_id: 'rp', post_logout_redirect_uri: LOGGED_OUT, state: 'st-7' });

  // A cross-site form carries no token: it is sent back as a GET, which asks again.
  const { csrf_token: _, ...withoutToken } = fields;
  const forged = await browser.fetch(new URL(action, serverURL).href, { method: 'POST', form: withoutToken });
  t.is(forged.status, 303);
  t.is((await browser.fetch(new URL(forged.headers.get('location')!, serverURL).href)).status, 200);
  const wrong = await browser.fetch(new URL(action, serverURL).href, {
    method: 'POST',
    form: { ...fields, csrf_token: 'not-the-token' },
  });
  t.is(wrong.status, 403);
  const foreign = await browser.fetch(new URL(action, serverURL).href, {
    method: 'POST',
    form: { ...fields, csrf_token: csrf },
    headers: { origin: 'https://evil.example' },
  });
  t.is(foreign.status, 403);
  t.true(await signedIn(config, browser));

  const fresh = form(await (await browser.fetch(url.href)).text()).csrf;
  const done = await browser.fetch(new URL(action, serverURL).href, {
    method: 'POST',
    form: { ...fields, csrf_token: fresh },
    headers: { origin: serverURL },
  });
  t.is(done.status, 303);
  t.is(done.headers.get('location'), `${LOGGED_OUT}?state=st-7`);
  t.false(await signedIn(config, browser));
});

test('a hint from an earlier sign-in asks first; with nobody signed in there is nothing to ask', async (t) => {
  const { config, browser, tokens } = await setup(t);
  const end = (hint: string) =>
    browser.fetch(oidc.buildEndSessionUrl(config, { id_token_hint: hint, post_logout_redirect_uri: LOGGED_OUT }).href);
  t.is((await end(tokens.id_token!)).status, 302);
  await signInWith(config, browser);
  const stale = await end(tokens.id_token!);
  t.is(stale.status, 200, 'the old sid is not this sign-in: the confirmation page');
  t.regex(await stale.text(), /Sign out\?/);
  t.true(await signedIn(config, browser));
  const nobody = await new Client(config.serverMetadata().issuer).fetch(
    oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: LOGGED_OUT, state: 's' }).href,
  );
  t.is(nobody.status, 302);
  t.is(nobody.headers.get('location'), `${LOGGED_OUT}?state=s`);
  const plain = await new Client(config.serverMetadata().issuer).fetch('/logout');
  t.is(plain.status, 200);
  t.is(await plain.text(), 'signed out\n');
});

test('a plain server (no signing keys) keeps its /logout: signed out at once; logout fields need keys', async (t) => {
  const server = await startOAuth2Server({ url: 'http://127.0.0.1:0', checker, clients: [RP] });
  t.teardown(() => server.close());
  const res = await fetch(`${server.url}/logout`);
  t.is(res.status, 200);
  t.is(await res.text(), 'signed out\n');
  await t.throwsAsync(startOAuth2Server({ url: 'http://127.0.0.1:0', checker, clients: [RP_LOGOUT] }), {
    message: 'clients[0].postLogoutRedirectURIs: without signing keys the server is no OpenID provider',
  });
});

test('client logout fields are checked at start, naming clients[i].<field>', async (t) => {
  const start = (client: Record<string, unknown>) =>
    startOAuth2Server({
      url: 'http://127.0.0.1:0',
      checker,
      clients: [RP, { ...SPA, ...client }] as never,
      signing: { alg: 'EdDSA', key: pemKey() },
    });
  await t.throwsAsync(start({ postLogoutRedirectURIs: 'http://a.test/' }), {
    message: 'clients[1].postLogoutRedirectURIs must be an array of URIs',
  });
  await t.throwsAsync(start({ postLogoutRedirectURIs: ['/relative'] }), {
    message: 'clients[1].postLogoutRedirectURIs: "/relative" is not an absolute http(s) URL without fragment',
  });
  await t.throwsAsync(start({ backchannelLogoutURI: 'http://rp.test/bc#x' }), {
    message: 'clients[1].backchannelLogoutURI: "http://rp.test/bc#x" is not an absolute http(s) URL without fragment',
  });
  await t.throwsAsync(start({ backchannelLogoutURI: 'ftp://rp.test/bc' }), {
    message: /clients\[1\]\.backchannelLogoutURI/,
  });
  await t.throwsAsync(start({ backChannelLogoutURI: 'http://rp.test/bc' }), {
    message: /unknown field "backChannelLogoutURI" \(known: .*postLogoutRedirectURIs, backchannelLogoutURI\)/,
  });
});
