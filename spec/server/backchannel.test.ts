/**
 * Back-Channel Logout from the local OpenID provider, end to end: a sign-in session at the server gives id_tokens
 * to an authkoa app (`kind: 'oidc'`) and to a relying party stand-in (a plain node server that checks the logout
 * token with jose); logging out at the server ends the app's session and tells the stand-in. A receiver that
 * fails is tried again by the server's clock, which the test moves: no sleeping.
 */
import type http from 'node:http';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { authKoa } from '../../lib/index.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, manualClock, serve } from '../helpers/http.js';
import { options, signIn } from './fixtures.js';
import { LOGGED_OUT, signInWith, startReceiver, type Receiver } from './logout-fixtures.js';
import { relyingParty, rpAuthorization, startProvider } from './openid-fixtures.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** The stand-in's registration: the back-channel receiver, and where it is sent back after a logout. */
const standIn = (receiver: Receiver) => ({
  id: 'rp2',
  secret: 'rp2-secret',
  redirectURIs: ['http://127.0.0.1:9/cb'],
  postLogoutRedirectURIs: [LOGGED_OUT],
  backchannelLogoutURI: `${receiver.url}/backchannel`,
});

/** What the stand-in checks of a logout token: jose, the provider's key set, typ logout+jwt, its audience. */
async function checkedLogoutToken(serverURL: string, token: string, audience: string) {
  const jwks = createRemoteJWKSet(new URL(`${serverURL}/.well-known/jwks.json`));
  return (await jwtVerify(token, jwks, { issuer: serverURL, audience, typ: 'logout+jwt', algorithms: ['RS256'] }))
    .payload;
}

/**
 * The shop: an authkoa app that logs in with `kind: 'oidc'` against the provider, registered there with its
 * back-channel route; strictRevocation, so an ended session is refused at its next request.
 */
async function startShop(t: ExecutionContext, receiver: Receiver, clock?: () => number) {
  let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
  const shop = await serve((req, res) => handler(req, res));
  t.teardown(() => shop.close());
  const shopClient = {
    id: 'shop',
    secret: 'shop-secret',
    redirectURIs: [`${shop.url}/auth/corp/callback`],
    backchannelLogoutURI: `${shop.url}/auth/corp/backchannel-logout`,
  };
  const { serverURL } = await startProvider(t, {}, { clients: [shopClient, standIn(receiver)], clock });
  const corp = { kind: 'oidc', name: 'corp', issuer: serverURL, cid: 'shop', csecret: 'shop-secret' };
  const auth = authKoa({ ...options([corp], { strictRevocation: true }), url: shop.url });
  const contract = contractRecorder(auth);
  t.teardown(() => contract.closed(() => auth.close()));
  const router = new Router();
  router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = { user: ctx.state.user }));
  const app = new Koa();
  app.silent = true;
  app.use(contract.use);
  app.use(auth);
  app.use(router.routes());
  handler = app.callback();
  return { shop, serverURL, auth };
}

test('logging out at the provider ends the authkoa app’s session and tells the stand-in with a valid logout token', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { shop, serverURL } = await startShop(t, receiver);
  const browser = new Client(serverURL);
  // The shop's login: the browser signs in at the server.
  const c = new Client(shop.url);
  const start = await c.fetch('/auth/corp/login?from=/');
  const callback = await signIn(browser, start.headers.get('location')!, 'alice', 'wonderland');
  t.is((await c.fetch(callback.pathname + callback.search)).status, 303);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 200);
  // The stand-in's login in the same browser: the same sign-in session at the server.
  const config = await relyingParty(serverURL, standIn(receiver));
  const tokens = await signInWith(config, browser);
  const sid = tokens.claims()!.sid as string;

  const url = oidc.buildEndSessionUrl(config, {
    id_token_hint: tokens.id_token!,
    post_logout_redirect_uri: LOGGED_OUT,
    state: 'bye',
  });
  const out = await browser.fetch(url.href);
  t.is(out.status, 302);
  t.is(out.headers.get('location'), `${LOGGED_OUT}?state=bye`);

  // The logout waited for the first tries: both have been told.
  const refused = await c.fetch('/private', { headers: c.xsrf() });
  t.is(refused.status, 401);
  t.is(((await refused.json()) as { code: string }).code, 'session_revoked');
  const [got] = await receiver.count(1);
  t.is(got!.contentType, 'application/x-www-form-urlencoded');
  t.is(decodeProtectedHeader(got!.token).typ, 'logout+jwt');
  const claims = await checkedLogoutToken(serverURL, got!.token, 'rp2');
  t.is(claims.sid, sid);
  t.is(claims.sub, 'alice');
  t.deepEqual(claims.events, { [EVENT]: {} });
  t.false('nonce' in claims);
  t.is(claims.exp! - claims.iat!, 120);
  t.regex(String(claims.jti), /^[\w-]{16,}$/);
  t.is(receiver.received.length, 1, 'told once');
});

test('only the clients that got an id_token in the ended sign-in session are told', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { serverURL } = await startShop(t, receiver);
  const config = await relyingParty(serverURL, standIn(receiver));
  // Another browser's sign-in session: the stand-in signed in there, not in this one.
  await signInWith(config, new Client(serverURL), 'bob', 'builder');
  const browser = new Client(serverURL);
  const tokens = await signInWith(config, browser);
  t.is((await browser.fetch(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).href)).status, 200);
  const [got] = await receiver.count(1);
  t.is((await checkedLogoutToken(serverURL, got!.token, 'rp2')).sub, 'alice');
  t.is(receiver.received.length, 1, "bob's session goes on, and its clients hear nothing");
});

test('a receiver answering 503 gets the logout token on a retry, by the server’s clock', async (t) => {
  const receiver = await startReceiver([503]);
  t.teardown(() => receiver.close());
  const clock = manualClock();
  const { serverURL } = await startShop(t, receiver, clock);
  const config = await relyingParty(serverURL, standIn(receiver));
  const browser = new Client(serverURL);
  const tokens = await signInWith(config, browser);
  await browser.fetch(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).href);
  const [first] = await receiver.count(1);
  t.is(receiver.received.length, 1, 'no retry before its time');
  clock.advance(5_000);
  const [, second] = await receiver.count(2);
  const claims = await checkedLogoutToken(serverURL, second!.token, 'rp2');
  t.is(claims.sid, tokens.claims()!.sid);
  t.not(claims.jti, (await checkedLogoutToken(serverURL, first!.token, 'rp2')).jti, 'each try is a new token');
});

test('another user signing in in the same browser ends the earlier sign-in session: its clients are told', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { serverURL } = await startShop(t, receiver);
  const config = await relyingParty(serverURL, standIn(receiver));
  const browser = new Client(serverURL);
  const alice = await signInWith(config, browser);
  // prompt=login: the page again, where bob signs in.
  const login = await rpAuthorization(config);
  login.url.searchParams.set('prompt', 'login');
  const callback = await signIn(browser, login.url.href, 'bob', 'builder');
  t.truthy(callback.searchParams.get('code'));
  const [got] = await receiver.count(1);
  const claims = await checkedLogoutToken(serverURL, got!.token, 'rp2');
  t.is(claims.sub, 'alice');
  t.is(claims.sid, alice.claims()!.sid);
});
