import type http from 'node:http';
import test, { type ExecutionContext } from 'ava';
import express, { type NextFunction, type Request, type Response } from 'express';
import { auth, type ConfigParams } from 'express-openid-connect';
import { decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import { Client, serve } from '../helpers/http.js';
import { signIn, submitLogin } from './fixtures.js';
import { formPost } from './form-post.js';
import { RP, RP_REDIRECT, startProvider } from './openid-fixtures.js';

/**
 * Relying parties we did not write, left at their defaults, log in through the local OpenID provider of an app
 * whose service key is EdDSA: they expect RS256 id_tokens (their default), and get them from the RSA key the
 * server keeps beside the service's.
 */

/**
 * A browser's cookie jar over plain http: a cookie marked Secure is never stored (as browsers do for a
 * non-secure origin). Cookies ignore ports, so one jar serves the provider and the relying party on 127.0.0.1,
 * which are one site: SameSite does not hold any of them back here.
 */
class HttpBrowser extends Client {
  override async fetch(
    path: string,
    init: RequestInit & { json?: unknown; form?: Record<string, string> } = {},
  ): Promise<globalThis.Response> {
    const res = await super.fetch(path, init);
    if (new URL(path, this.base).protocol === 'http:')
      for (const c of this.lastCookies) if (c.attrs.secure) this.jar.delete(c.name);
    return res;
  }
}

const FORM_POST = { response_type: 'code', response_mode: 'form_post' };
const EXPRESS_CLIENT = { id: 'express-rp', secret: 'express-rp-secret' };

/** What the Express app's /me route answers: express-openid-connect's view of the request. */
interface Me {
  authenticated: boolean;
  user: Record<string, unknown> | null;
  info?: Record<string, unknown>;
}

/**
 * An Express app with express-openid-connect at its defaults (idTokenSigningAlg RS256), registered as a client
 * of an EdDSA-keyed provider. The app listens first, so its callback URL is known when the provider registers it.
 */
async function expressRelyingParty(t: ExecutionContext, config: Partial<ConfigParams>) {
  let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
  const site = await serve((req, res) => handler(req, res));
  t.teardown(() => site.close());
  const client = { ...EXPRESS_CLIENT, redirectURIs: [`${site.url}/callback`] };
  const { serverURL } = await startProvider(t, {}, { clients: [client] });
  const failures: string[] = [];
  const app = express();
  app.use(
    auth({
      issuerBaseURL: serverURL,
      baseURL: site.url,
      clientID: client.id,
      clientSecret: client.secret,
      secret: 'express-openid-connect-session-secret-0123456789',
      authRequired: false,
      ...config,
    }),
  );
  app.get('/me', async (req: Request, res: Response) => {
    const authenticated = req.oidc.isAuthenticated();
    const info = authenticated ? { ...(await req.oidc.fetchUserInfo()) } : undefined;
    res.json({ authenticated, user: req.oidc.user ?? null, info } satisfies Me);
  });
  // Express's default handler would print the stack: the test reads the failure from the answer instead.
  app.use((err: Error & { status?: number }, _req: Request, res: Response, next: NextFunction) => {
    failures.push(err.message);
    if (res.headersSent) return next(err);
    res
      .status(err.status ?? 500)
      .type('text')
      .send(err.message);
  });
  handler = app;
  return { site, serverURL, failures };
}

test('openid-client with no id_token_signed_response_alg (RS256 by default) logs in through an EdDSA-keyed provider and reads userinfo', async (t) => {
  const { serverURL } = await startProvider(t);
  // The plainest setup: discovery with the client secret, nothing else said about the client.
  const config = await oidc.discovery(new URL(serverURL), RP.id, RP.secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });
  t.is(config.clientMetadata().id_token_signed_response_alg, undefined, 'the RP was told no algorithm');
  t.deepEqual(config.serverMetadata().id_token_signing_alg_values_supported, ['RS256', 'EdDSA']);

  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: RP_REDIRECT,
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  });
  const callback = await signIn(new Client(serverURL), url.href, 'alice', 'wonderland');
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: state,
  });
  t.is(decodeProtectedHeader(tokens.id_token!).alg, 'RS256');
  t.like(tokens.claims(), { iss: serverURL, aud: RP.id, sub: 'alice', nonce, name: 'Alice Liddell' });
  t.like(await oidc.fetchUserInfo(config, tokens.access_token, 'alice'), {
    sub: 'alice',
    name: 'Alice Liddell',
    email: 'alice@example.test',
  });
});

test('express-openid-connect at its defaults (RS256, response_type code) logs a browser in: req.oidc.user is alice and isAuthenticated() is true', async (t) => {
  const { site, serverURL, failures } = await expressRelyingParty(t, {
    authorizationParams: { response_type: 'code' },
  });
  const browser = new HttpBrowser(site.url);
  t.deepEqual(await (await browser.fetch('/me')).json(), { authenticated: false, user: null });

  const login = await browser.fetch('/login');
  t.is(login.status, 302);
  const authorize = new URL(login.headers.get('location')!);
  t.is(`${authorize.origin}${authorize.pathname}`, `${serverURL}/authorize`);
  t.like(Object.fromEntries(authorize.searchParams), {
    client_id: EXPRESS_CLIENT.id,
    response_type: 'code',
    redirect_uri: `${site.url}/callback`,
    code_challenge_method: 'S256',
  });
  t.truthy(authorize.searchParams.get('nonce'));

  const callback = await signIn(browser, authorize.href, 'alice', 'wonderland');
  t.is(`${callback.origin}${callback.pathname}`, `${site.url}/callback`);
  t.is(callback.searchParams.get('iss'), serverURL);
  const back = await browser.fetch(callback.href);
  t.is(back.status, 302, await back.clone().text());
  t.is(back.headers.get('location'), site.url, 'to the returnTo of the login');
  t.true(browser.jar.has('appSession'), 'express-openid-connect opened its session');

  const me = (await (await browser.fetch('/me')).json()) as Me;
  t.true(me.authenticated);
  t.like(me.user, { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
  t.like(me.info, { sub: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
  t.deepEqual(failures, []);
});

test('express-openid-connect with response_mode form_post: the provider answers with an auto-submitting form, posted like a browser, and the user is signed in', async (t) => {
  const { site, serverURL, failures } = await expressRelyingParty(t, { authorizationParams: FORM_POST });
  const browser = new HttpBrowser(site.url);
  const login = await browser.fetch('/login');
  t.is(login.status, 302);
  // For form_post express-openid-connect marks its transaction cookie SameSite=None, so Secure, which a browser
  // drops over http; its legacy twin (no SameSite, no Secure: legacySameSiteCookie, on by default) is what is kept.
  const set = Object.fromEntries(browser.lastCookies.map((c) => [c.name, c.attrs]));
  t.like(set.auth_verification, { samesite: 'None', secure: true });
  t.is(set._auth_verification?.secure, undefined);
  t.false(browser.jar.has('auth_verification'));
  t.true(browser.jar.has('_auth_verification'));
  const authorize = new URL(login.headers.get('location')!);
  t.is(authorize.searchParams.get('response_mode'), 'form_post');

  const { res: posted } = await submitLogin(browser, authorize.href, 'alice', 'wonderland');
  t.is(posted.status, 303);
  const page = await browser.fetch(new URL(posted.headers.get('location')!, serverURL).href);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  const html = await page.text();
  t.regex(html, /<script>document\.forms\[0\]\.submit\(\)<\/script>/, 'the form submits itself');
  const { action, fields } = formPost(html);
  t.is(action, `${site.url}/callback`);
  t.deepEqual(Object.keys(fields).sort(), ['code', 'iss', 'state']);
  t.is(fields.iss, serverURL);

  // What the browser's submit sends: a cross-origin form post, from the provider's page.
  const back = await browser.fetch(action, { method: 'POST', form: fields, headers: { Origin: serverURL } });
  t.is(back.status, 302, await back.clone().text());
  t.is(back.headers.get('location'), site.url);
  const me = (await (await browser.fetch('/me')).json()) as Me;
  t.true(me.authenticated);
  t.like(me.user, { sub: 'alice', name: 'Alice Liddell' });
  t.deepEqual(failures, []);
});

test("form_post over http works only through express-openid-connect's legacy transaction cookie: with legacySameSiteCookie false the callback finds no transaction", async (t) => {
  const { site, failures } = await expressRelyingParty(t, {
    authorizationParams: FORM_POST,
    legacySameSiteCookie: false,
  });
  const browser = new HttpBrowser(site.url);
  const login = await browser.fetch('/login');
  t.false(browser.jar.has('auth_verification'), 'the Secure cookie is dropped over http');
  t.false(browser.jar.has('_auth_verification'), 'and there is no twin');
  const { res: posted } = await submitLogin(browser, login.headers.get('location')!, 'alice', 'wonderland');
  const page = await browser.fetch(new URL(posted.headers.get('location')!, login.headers.get('location')!).href);
  const { action, fields } = formPost(await page.text());
  const back = await browser.fetch(action, { method: 'POST', form: fields });
  t.is(back.status, 400);
  t.is(failures.length, 1);
  t.regex(failures[0], /"auth_verification" cookie not found/);
  t.false((await browser.fetch('/me').then((r) => r.json() as Promise<Me>)).authenticated);
});
