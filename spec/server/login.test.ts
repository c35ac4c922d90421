import type http from 'node:http';
import test from 'ava';
import Koa from 'koa';
import { authKoa } from '../../lib/index.js';
import { startOAuth2Server } from '../../lib/providers/oauth2-server/local.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, decodeJwt, serve, startApp } from '../helpers/http.js';
import { checker, form, options, signIn, submitLogin } from './fixtures.js';

/** Starts the login at the app and returns the authorize URL it redirected to. */
async function startLogin(app: Client, provider = 'server'): Promise<URL> {
  const res = await app.fetch(`/auth/${provider}/login?from=/private`);
  if (res.status !== 302) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return new URL(res.headers.get('location')!);
}

test('full login through the login page: form post, session, redirect, token exchange, cookie set', async (t) => {
  const app = await startApp(options([{ kind: 'server', url: 'http://127.0.0.1:0', checker }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c);
  t.is(authorize.pathname, '/authorize');
  t.is(authorize.searchParams.get('client_id'), 'authkoa-server');
  t.is(authorize.searchParams.get('redirect_uri'), `${app.url}/auth/server/callback`);
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');

  const browser = new Client(authorize.origin);
  const page = await browser.fetch(authorize.href);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type')!, /^text\/html/);
  t.regex(page.headers.get('content-security-policy')!, /form-action 'self' http:\/\/127\.0\.0\.1:\d+/);
  const html = await page.text();
  t.regex(html, /<label for="username">User name<\/label>/);
  t.regex(html, /<label for="password">Password<\/label>/);
  t.regex(html, /autocomplete="current-password"/);
  const session = browser.cookie('authkoa-oauth2.sid');
  t.truthy(session, 'the page starts a server session holding the CSRF token');
  t.is(session!.attrs.httponly, true);
  t.is(session!.attrs.samesite, 'lax');

  const f = form(html);
  const post = await browser.fetch(new URL(f.action, authorize).href, {
    method: 'POST',
    form: { username: 'alice', password: 'wonderland', csrf_token: f.csrf },
  });
  t.is(post.status, 303, 'post/redirect/get');
  t.not(browser.jar.get('authkoa-oauth2.sid'), session!.value, 'a new session id at sign-in');
  const back = await browser.fetch(new URL(post.headers.get('location')!, authorize).href);
  t.is(back.status, 302);
  const callback = new URL(back.headers.get('location')!);
  t.is(callback.origin + callback.pathname, `${app.url}/auth/server/callback`);
  t.is(callback.searchParams.get('state'), authorize.searchParams.get('state'));

  const done = await c.fetch(callback.pathname + callback.search);
  t.is(done.status, 303);
  t.is(done.headers.get('location'), `${app.url}/private`);
  const jwt = c.cookie('JWT');
  t.truthy(jwt?.value);
  t.is(jwt!.attrs.httponly, true);
  const claims = decodeJwt(jwt!.value);
  t.is(claims.user.id, 'alice', 'ids from the local server are kept raw, as in the original');
  t.is(claims.user.name, 'Alice Liddell');
  t.is(claims.user.email, 'alice@example.test');
  t.deepEqual(claims.auth_provider, { name: 'server' });
  const priv = await c.fetch('/private', { headers: c.xsrf() });
  t.is(priv.status, 201);
  t.is(((await priv.json()) as { user: { id: string } }).user.id, 'alice');
});

test('a user still signed in at the server is not asked again; logout at the server ends that', async (t) => {
  const app = await startApp(options([{ kind: 'server', url: 'http://127.0.0.1:0', checker }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c);
  const browser = new Client(authorize.origin);
  const first = await signIn(browser, authorize.href, 'bob', 'builder');
  t.is((await c.fetch(first.pathname + first.search)).status, 303);
  t.is(decodeJwt(c.jar.get('JWT')!).user.name, 'bob');

  const second = await startLogin(c);
  const again = await browser.fetch(second.href);
  t.is(again.status, 302, 'no login page: the server session remembers bob');
  const cb = new URL(again.headers.get('location')!);
  t.is((await c.fetch(cb.pathname + cb.search)).status, 303);

  await browser.fetch(`${authorize.origin}/logout`, { method: 'POST' });
  const third = await browser.fetch((await startLogin(c)).href);
  t.is(third.status, 200, 'signed out at the server: the page again');
});

test('wrong password shows the form again with an error and no redirect', async (t) => {
  const app = await startApp(options([{ kind: 'server', url: 'http://127.0.0.1:0', checker }]));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c);
  const browser = new Client(authorize.origin);
  const { res } = await submitLogin(browser, authorize.href, 'alice', 'looking-glass');
  t.is(res.status, 200);
  t.is(res.headers.get('location'), null);
  const html = await res.text();
  t.regex(html, /role="alert">Wrong user name or password\.</);
  t.regex(html, /aria-invalid="true"/);
  t.regex(html, /name="username"[^>]*value="alice"/, 'the user name is kept');
  t.notRegex(html, /looking-glass/, 'the password is never echoed');
  // The form shown again works.
  const f = form(html);
  const ok = await browser.fetch(new URL(f.action, authorize).href, {
    method: 'POST',
    form: { username: 'alice', password: 'wonderland', csrf_token: f.csrf },
  });
  t.is(ok.status, 303);
});

test("a user id shaped like another provider's is refused: 403 foreign_user_id, no session", async (t) => {
  const social = `github_${'ab'.repeat(20)}`;
  const own = `server_${'cd'.repeat(20)}`;
  const taker = async (user: string) => (user === 'mallory' ? { id: social } : user === 'self' ? { id: own } : false);
  const app = await startApp(options([{ kind: 'server', url: 'http://127.0.0.1:0', checker: taker }]));
  t.teardown(() => app.close());
  const loginAs = async (user: string) => {
    const c = new Client(app.url);
    const authorize = await startLogin(c);
    const callback = await signIn(new Client(authorize.origin), authorize.href, user, 'any');
    return { c, res: await c.fetch(callback.pathname + callback.search) };
  };
  const { c, res } = await loginAs('mallory');
  t.is(res.status, 403);
  t.deepEqual(await res.json(), { error: "server: user id looks like another provider's id", code: 'foreign_user_id' });
  t.false(c.jar.has('JWT'));
  const self = await loginAs('self');
  t.is(self.res.status, 303, "an id under the provider's own name is its own");
  t.is(decodeJwt(self.c.cookie('JWT')!.value).user.id, own);
});

test('a custom loginPageHandler replaces the built-in page and posts the same fields', async (t) => {
  const app = await startApp(
    options([
      {
        kind: 'server',
        url: 'http://127.0.0.1:0',
        checker,
        loginPageHandler: (ctx: any, page: any) => {
          ctx.type = 'text/html';
          ctx.body = `<h1>ACME staff</h1>${page.error ? `<b>${page.error}</b>` : ''}<form action="${page.action.replace(/&/g, '&#38;')}"><input name="csrf_token" value="${page.csrfToken}"></form>`;
        },
      },
    ]),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const authorize = await startLogin(c);
  const browser = new Client(authorize.origin);
  const { res } = await submitLogin(browser, authorize.href, 'bob', 'nope');
  t.regex(await res.text(), /<h1>ACME staff<\/h1><b>Wrong user name or password\.<\/b>/);
  const cb = await signIn(browser, authorize.href, 'bob', 'builder');
  t.is((await c.fetch(cb.pathname + cb.search)).status, 303);
});

test('a standalone server consumed as kind oauth2', async (t) => {
  // The app listens first so its callback URL is known when the server registers the client.
  let handler: http.RequestListener = (_req, res) => void res.writeHead(503).end();
  const served = await serve((req, res) => handler(req, res));
  t.teardown(() => served.close());
  const server = await startOAuth2Server({
    url: 'http://127.0.0.1:0',
    checker,
    clients: [{ id: 'shop', secret: 'shop-secret', redirectURIs: [`${served.url}/auth/corp/callback`] }],
  });
  t.teardown(() => server.close());
  const { authURL, tokenURL, infoURL } = server.endpoints();
  const auth = authKoa({
    ...options([
      {
        kind: 'oauth2',
        name: 'corp',
        cid: 'shop',
        csecret: 'shop-secret',
        endpoint: { authURL, tokenURL },
        infoURL,
        mapUser: (d: any) => ({ id: d.id, name: d.name }),
      },
    ]),
    url: served.url,
  });
  const contract = contractRecorder(auth);
  t.teardown(() => contract.closed(() => auth.close()));
  const app = new Koa();
  app.use(contract.use);
  app.use(auth);
  handler = app.callback();

  const c = new Client(served.url);
  const authorize = await startLogin(c, 'corp');
  t.is(authorize.origin, server.url);
  const cb = await signIn(new Client(authorize.origin), authorize.href, 'alice', 'wonderland');
  const done = await c.fetch(cb.pathname + cb.search);
  t.is(done.status, 303);
  const user = decodeJwt(c.jar.get('JWT')!).user;
  t.regex(user.id, /^corp_[0-9a-f]{40}$/, 'kind oauth2 hashes ids as usual');
  t.is(user.name, 'Alice Liddell');
});

test('bad kind server options fail start-up (auth.ready) naming the option', async (t) => {
  const make = (entry: Record<string, unknown>) => () =>
    authKoa({
      ...options([{ kind: 'server', url: 'http://127.0.0.1:0', checker, ...entry }]),
      url: 'http://127.0.0.1:1',
    }).ready;
  await t.throwsAsync(make({ checker: undefined }), { message: /providers\[0\] \(server\): checker/ });
  await t.throwsAsync(make({ url: 'http://127.0.0.1' }), {
    message: /providers\[0\] \(server\): url must include a port/,
  });
  await t.throwsAsync(make({ url: 'ftp://127.0.0.1:21' }), { message: /url must be an absolute http\(s\) URL/ });
  await t.throwsAsync(make({ withLoginPage: false }), { message: /withLoginPage is false and no loginPageHandler/ });
  await t.throwsAsync(make({ codeTTL: 'soon' }), { message: /codeTTL must be/ });
  await t.throwsAsync(make({ clients: [{ id: 'x', redirectURIs: ['/relative'] }] }), {
    message: /clients\[0\]\.redirectURIs/,
  });
});

test('localhost binds 127.0.0.1; close() stops the server', async (t) => {
  const server = await startOAuth2Server({ url: 'http://localhost:0', checker });
  t.regex(server.url, /^http:\/\/localhost:\d+$/);
  t.is((await fetch(`http://127.0.0.1:${server.port}/nope`)).status, 404);
  await server.close();
  await t.throwsAsync(() => fetch(`http://127.0.0.1:${server.port}/nope`));
});
