/**
 * `authkoa/client` in real headless Chromium, loaded as the built ES module (`dist/browser/client.js`,
 * what `import 'authkoa/client'` gives a bundler) and as the script-tag bundle, against a running app on
 * http://localhost:<port> (WebAuthn refuses IP addresses): the browser keeps the cookies, the client reads
 * the XSRF token from `document.cookie`, passkeys go through a CDP virtual authenticator. Every answer of
 * the auth routes is checked against the app's OpenAPI document when the app closes.
 */
import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import Router from '@koa/router';
import type { Page } from 'playwright-core';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { sha1 } from '../../lib/user.js';
import { contractRecorder } from '../helpers/answers.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { manualClock, serve } from '../helpers/http.js';
import { appCode, PASSWORDS } from '../mfa/fixtures.js';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'browser');
const browser = useChromium(test);
const quiet = { info() {}, warn() {}, error() {} };

interface ClientApp {
  url: string;
  clock: ReturnType<typeof manualClock>;
  /** The X-XSRF-TOKEN header of each request to the auth routes, by path, as the server received it. */
  xsrfSent: Array<{ path: string; header: string | undefined }>;
}

/** The app (direct, passkey, mfa) with two pages: one importing the ES module, one with the script tag. */
async function startClientApp(t: ExecutionContext): Promise<ClientApp> {
  const koa = new Koa();
  koa.silent = true;
  const served = await serve((req, res) => koa.callback()(req, res));
  const url = served.url.replace('127.0.0.1', 'localhost');
  const clock = manualClock();
  const auth = authKoa({
    secret: 'client-browser-secret-0123456789abcdef',
    url,
    clock,
    logger: quiet,
    allowVolatileStores: true, // factors and passkeys in memory: a test app's own choice
    providers: [
      { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw },
      { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' },
      { kind: 'dev', port: 0 },
    ],
    mfa: { store: memoryStateStore({ clock }) },
  } as AuthKoaOptions);
  await auth.ready;
  const contract = contractRecorder(auth);
  t.teardown(() =>
    contract.closed(async () => {
      await auth.close();
      await served.close();
    }),
  );
  const [esm, global] = await Promise.all([
    readFile(join(DIST, 'client.js'), 'utf8'),
    readFile(join(DIST, 'client.global.js'), 'utf8'),
  ]);
  const router = new Router();
  const page = (script: string) => `<!doctype html><meta charset="utf-8"><title>client</title>${script}`;
  router.get('/module', (ctx) => {
    ctx.type = 'html';
    ctx.body = page(
      `<script type="module">import * as client from '/client.js'; window.authkoaClient = client; window.loaded = true;</script>`,
    );
  });
  router.get('/script', (ctx) => {
    ctx.type = 'html';
    ctx.body = page(`<script src="/client.global.js"></script><script>window.loaded = true;</script>`);
  });
  router.get('/client.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = esm;
  });
  router.get('/client.global.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = global;
  });
  router.post('/private', auth.middleware.auth, (ctx) => {
    ctx.status = 201;
    ctx.body = { user: ctx.state.user };
  });
  const xsrfSent: ClientApp['xsrfSent'] = [];
  koa.use(async (ctx, next) => {
    if (ctx.path.startsWith('/auth/')) xsrfSent.push({ path: ctx.path, header: ctx.get('x-xsrf-token') || undefined });
    await next();
  });
  koa.use(contract.use);
  koa.use(auth);
  koa.use(router.routes());
  return { url, clock, xsrfSent };
}

/** A fresh browser context (its own cookies) on `path`, with a virtual authenticator, once the client is loaded. */
async function open(t: ExecutionContext, app: ClientApp, path: '/module' | '/script'): Promise<Page> {
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page);
  await page.goto(app.url + path);
  await page.waitForFunction(() => (window as any).loaded === true);
  return page;
}

/** Runs `body` in the page with `auth`, a client made with no options (the page's origin); a rejection comes back as `{ error: { name, code, status, isClientError } }`. */
function inPage<T>(page: Page, body: string, arg: unknown = null): Promise<T> {
  return page.evaluate(
    async ({ body, arg }) => {
      const { createAuthClient, AuthClientError } = (window as any).authkoaClient;
      const auth = createAuthClient();
      const run = new Function('auth', 'arg', `return (async () => { ${body} })();`);
      try {
        return await run(auth, arg);
      } catch (e: any) {
        return {
          error: {
            name: e?.name,
            code: e?.code,
            status: e?.status,
            message: String(e?.message),
            isClientError: e instanceof AuthClientError,
          },
        };
      }
    },
    { body, arg },
  ) as Promise<T>;
}

test('ES module: providers, status, a login, the user, logout; user() after logout() is a typed no_token', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/module');
  const r = await inPage<any>(
    page,
    `const out = {};
     out.providers = await auth.providers();
     out.details = await auth.providers({ details: true });
     out.before = await auth.status();
     out.login = await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
     out.user = await auth.user();
     out.after = await auth.status();
     await auth.logout();
     try { await auth.user(); } catch (e) { out.refused = { code: e.code, status: e.status, typed: e instanceof window.authkoaClient.AuthClientError }; }
     return out;`,
  );
  t.deepEqual(r.providers, ['direct', 'passkey', 'dev']);
  t.deepEqual(r.details, [
    { name: 'direct', kind: 'direct' },
    { name: 'passkey', kind: 'passkey' },
    { name: 'dev', kind: 'dev' },
  ]);
  t.deepEqual(r.before, { status: 'not logged in' });
  t.is(r.login.state, 'logged_in');
  t.is(r.user.id, `direct_${sha1('alice')}`);
  t.deepEqual(r.after, { status: 'logged in', user: 'alice' });
  t.deepEqual(r.refused, { code: 'no_token', status: 401, typed: true });
});

test('the XSRF header the page sends is the XSRF-TOKEN cookie the browser holds', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/module');
  await inPage(page, `await auth.login('direct', { user: 'bob', passwd: 'bob-pw' }); await auth.user();`);
  const cookie = (await page.context().cookies()).find((c) => c.name === 'XSRF-TOKEN');
  t.truthy(cookie?.value);
  const sent = app.xsrfSent.filter((r) => r.path === '/auth/user');
  t.is(sent.length, 1);
  t.is(sent[0]!.header, decodeURIComponent(cookie!.value));
  // Without the header the browser's cookies alone are refused: the header is what the client added.
  const bare = await page.evaluate(async () => (await fetch('/auth/user')).status);
  t.is(bare, 401);
});

test('refusals in the page are AuthClientErrors with the server code: bad_credentials, unknown_provider, invalid_code', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/module');
  const wrong = await inPage<any>(page, `return auth.login('direct', { user: 'alice', passwd: 'nope' });`);
  t.deepEqual(wrong.error, {
    name: 'AuthClientError',
    code: 'bad_credentials',
    status: 403,
    message: wrong.error.message,
    isClientError: true,
  });
  const unknown = await inPage<any>(page, `return auth.login('nobody', {});`);
  t.like(unknown.error, { code: 'unknown_provider', status: 400, isClientError: true });
  const noSession = await inPage<any>(page, `return auth.sessions.list();`);
  t.like(noSession.error, { code: 'no_token', status: 401, isClientError: true });
});

test('mfa_required is a state in the page too; mfa.verify() finishes the login; the sessions list shows this browser', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/module');
  const setup = await inPage<any>(
    page,
    `await auth.login('direct', { user: 'alice', passwd: 'alice-pw' }); return auth.mfa.setupTotp();`,
  );
  const confirmed = await inPage<any>(
    page,
    `return auth.mfa.confirmTotp(arg);`,
    appCode(setup.otpauthUrl, app.clock()),
  );
  t.is(confirmed.recoveryCodes.length, 10);
  app.clock.advance(30_000);
  const first = await inPage<any>(
    page,
    `await auth.logout(); return auth.login('direct', { user: 'alice', passwd: 'alice-pw' });`,
  );
  t.deepEqual(first, { state: 'mfa_required', factors: ['totp', 'recovery'], enrollRequired: false });
  const done = await inPage<any>(
    page,
    `const user = await auth.mfa.verify({ code: arg }); return { user, sessions: await auth.sessions.list(), status: await auth.mfa.status() };`,
    appCode(setup.otpauthUrl, app.clock()),
  );
  t.is(done.user.name, 'alice');
  t.is(done.sessions.length, 1);
  t.true(done.sessions[0].current);
  t.deepEqual(done.status, { state: 'logged_in', summary: { totp: true, recoveryCodesLeft: 10, passkeys: 0 } });

  // A passkey as the second step, through the browser's prompt. Adding it ends the user's other sessions issued
  // up to that millisecond, at once: the next login comes a second later on the app's clock, as a person's would.
  t.truthy((await inPage<any>(page, `return auth.passkeys.register();`)).id);
  app.clock.advance(1000);
  const second = await inPage<any>(
    page,
    `await auth.logout();
     const first = await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
     const user = await auth.mfa.verifyWithPasskey();
     return { first, user };`,
  );
  t.deepEqual(second.first, { state: 'mfa_required', factors: ['totp', 'recovery', 'passkey'], enrollRequired: false });
  t.is(second.user.name, 'alice');

  // The rest of the calls: new recovery codes, turning the app off, the app's own route, ending sessions.
  const other = await open(t, app, '/module');
  app.clock.advance(30_000); // the step whose code logged the first page in is spent
  t.like(await inPage<any>(other, `return auth.login('direct', { user: 'alice', passwd: 'alice-pw' });`), {
    state: 'mfa_required',
  });
  t.like(await inPage<any>(other, `return auth.mfa.verify({ code: arg });`, appCode(setup.otpauthUrl, app.clock())), {
    name: 'alice',
  });
  const rest = await inPage<any>(
    page,
    `const sessions = await auth.sessions.list();
     const codes = await auth.mfa.newRecoveryCodes();
     const off = await auth.mfa.disableTotp(); // a factor changed: the user's other sessions end
     const mine = await auth.fetch('/private', { method: 'POST' });
     const ended = await auth.sessions.endOthers();
     const after = await auth.sessions.list();
     await auth.sessions.end(after[0].sid);
     let gone; try { await auth.user(); } catch (e) { gone = e.code; }
     return { codes: codes.length, off, mine: { status: mine.status, body: await mine.json() }, sessions: sessions.length, ended, after: after.length, gone };`,
  );
  t.like(rest, {
    codes: 10,
    off: { totp: false, recoveryCodesLeft: 0, passkeys: 1 },
    mine: { status: 201, body: { user: { name: 'alice' } } },
    after: 1,
    gone: 'no_token',
  });
  t.is(rest.sessions, 2);
  t.is(rest.ended.ended, 'others');
});

test('loginRedirect() leaves the page for the provider (the dev server) and comes back to `from` logged in', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/module');
  // The call returns the URL as the page starts navigating: its context may be gone before the answer arrives.
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith('/module')),
    page
      .evaluate(() => void (window as any).authkoaClient.createAuthClient().loginRedirect('dev', { from: '/module' }))
      .catch(() => undefined),
  ]);
  await page.fill('input[name=username]', 'dev_user');
  await Promise.all([page.waitForURL(`${app.url}/module`), page.click('button')]);
  await page.waitForFunction(() => (window as any).loaded === true);
  t.like(await inPage<any>(page, `return auth.user();`), { name: 'dev_user' });
});

test('script tag: passkeys through the browser prompt (virtual authenticator): register, list, log in, remove', async (t) => {
  const app = await startClientApp(t);
  const page = await open(t, app, '/script');
  const added = await inPage<any>(
    page,
    `await auth.login('direct', { user: 'bob', passwd: 'bob-pw' });
     const { id } = await auth.passkeys.register();
     const listed = await auth.passkeys.list();
     await auth.logout();
     return { id, listed };`,
  );
  t.truthy(added.id, JSON.stringify(added));
  // Adding the passkey ended bob's other sessions issued up to that millisecond, at once: the passkey's login
  // comes a second later on the app's clock, as a person's would.
  app.clock.advance(1000);
  const r = await inPage<any>(
    page,
    `const login = await auth.passkeys.login();
     const user = await auth.user();
     await auth.passkeys.remove(arg);
     return { login, user, after: await auth.passkeys.list() };`,
    added.id,
  );
  t.truthy(r.login, JSON.stringify(r));
  t.deepEqual(
    added.listed.map((p: { id: string }) => p.id),
    [added.id],
  );
  t.is(r.login.state, 'logged_in');
  t.is(r.user.id, `direct_${sha1('bob')}`);
  t.deepEqual(r.after, []);
});
