/**
 * A passkey as the second step, in real headless Chromium with a CDP virtual authenticator: the built-in
 * page's "Use a passkey" button, and `verifyMfaWithPasskey()` of browser/mfa.ts (its script-tag bundle),
 * each with the browser's WebAuthn JSON methods and again with them removed (the page's and the
 * helper's own base64url conversions, as older browsers need). The app is on http://localhost:<port>:
 * WebAuthn refuses IP addresses as relying party ids.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import type { Page } from 'playwright-core';
import { authKoa } from '../../lib/index.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { contractRecorder } from '../helpers/answers.js';
import { decodeJwt, serve } from '../helpers/http.js';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'browser');
const browser = useChromium(test);

/**
 * An app on localhost with a password provider (alice) and passkeys; `mfa.required` is what `required`
 * holds when a login asks, so a test registers a passkey first and then makes it the second step.
 */
async function startApp(t: ExecutionContext) {
  const required = { on: false };
  const koa = new Koa();
  const served = await serve((req, res) => koa.callback()(req, res));
  const url = served.url.replace('127.0.0.1', 'localhost');
  const auth = authKoa({
    secret: 'mfa-passkey-browser-secret-0123456789',
    url,
    logger: { info() {}, warn() {}, error() {} },
    allowVolatileStores: true, // factors and passkeys in memory: a test app's own choice
    providers: [
      { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => user === 'alice' && pw === 'alice-pw' },
      { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' },
    ],
    mfa: { store: memoryStateStore(), required: () => required.on },
  });
  const contract = contractRecorder(auth);
  t.teardown(() =>
    contract.closed(async () => {
      await auth.close();
      await served.close();
    }),
  );
  await auth.ready;
  const [passkeyJs, mfaJs] = await Promise.all([
    readFile(join(DIST, 'passkey.js'), 'utf8'),
    readFile(join(DIST, 'mfa.js'), 'utf8'),
  ]);
  const router = new Router();
  router.get('/page', (ctx) => {
    ctx.type = 'html';
    ctx.body =
      '<!doctype html><meta charset="utf-8"><title>mfa</title><script src="/passkey.js"></script><script src="/mfa.js"></script>';
  });
  router.get('/passkey.js', (ctx) => void ((ctx.type = 'text/javascript'), (ctx.body = passkeyJs)));
  router.get('/mfa.js', (ctx) => void ((ctx.type = 'text/javascript'), (ctx.body = mfaJs)));
  koa.use(contract.use);
  koa.use(auth);
  koa.use(router.routes());
  return { url, required };
}

/** Takes the browser's WebAuthn JSON methods away before any script runs, as in browsers that predate them. */
const WITHOUT_JSON_METHODS = () => {
  delete (PublicKeyCredential as unknown as Record<string, unknown>).parseRequestOptionsFromJSON;
  delete (PublicKeyCredential as unknown as Record<string, unknown>).parseCreationOptionsFromJSON;
  delete (PublicKeyCredential.prototype as unknown as Record<string, unknown>).toJSON;
};

/** A page on /page with a virtual authenticator of its own. */
async function openPage(
  t: ExecutionContext,
  url: string,
  fallback: boolean,
): Promise<{ page: Page; errors: string[] }> {
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  if (fallback) await page.addInitScript(WITHOUT_JSON_METHODS);
  await addVirtualAuthenticator(context, page);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/page`);
  t.is(
    await page.evaluate(
      () => typeof (PublicKeyCredential as unknown as Record<string, unknown>).parseRequestOptionsFromJSON,
    ),
    fallback ? 'undefined' : 'function',
  );
  return { page, errors };
}

/** A request from the page (the XSRF header from the cookie, as a page script would send it): status and JSON. */
function call(page: Page, path: string, method = 'GET', body?: unknown): Promise<{ status: number; json: any }> {
  return page.evaluate(
    async ({ path, method, body }) => {
      const xsrf = decodeURIComponent(/(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '');
      const res = await fetch(path, {
        method,
        headers: { 'X-XSRF-TOKEN': xsrf, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    { path, method, body },
  );
}

const passwordLogin = (page: Page) => call(page, '/auth/direct/login', 'POST', { user: 'alice', passwd: 'alice-pw' });

/** The `amr` of the page's session cookie. */
async function amr(page: Page): Promise<string[]> {
  const jwt = (await page.context().cookies()).find((c) => c.name === 'JWT');
  return jwt ? decodeJwt(jwt.value).amr : [];
}

for (const fallback of [false, true]) {
  const how = fallback ? 'without the browser JSON methods' : 'with the browser JSON methods';

  test(`a passkey as the second step: the built-in page's button, then verifyMfaWithPasskey(), ${how}`, async (t) => {
    const app = await startApp(t);
    const { page, errors } = await openPage(t, app.url, fallback);
    t.is((await passwordLogin(page)).status, 200);
    await page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
    app.required.on = true;
    t.is((await call(page, '/auth/logout')).status, 200);

    const pending = await passwordLogin(page);
    t.deepEqual(
      pending.json,
      { mfa_required: true, factors: ['passkey'] },
      'the passkey is the factor this login may answer with',
    );
    t.deepEqual(await page.evaluate(() => (window as any).authkoaMfa.mfaStatus()), {
      mfa_required: true,
      factors: ['passkey'],
    });
    await page.goto(`${app.url}/auth/mfa/page`);
    t.false(await page.isVisible('#code'), 'no code form: no app is set up');
    await page.click('#passkey');
    await page.waitForURL(`${app.url}/`);
    t.deepEqual(await amr(page), ['pwd', 'hwk', 'mfa']);

    await page.goto(`${app.url}/page`);
    t.is((await call(page, '/auth/logout')).status, 200);
    t.deepEqual(await amr(page), []);
    t.is((await passwordLogin(page)).json.mfa_required, true);
    const user = await page.evaluate(() => (window as any).authkoaMfa.verifyMfaWithPasskey());
    t.is(user.name, 'alice');
    t.deepEqual(await amr(page), ['pwd', 'hwk', 'mfa']);
    t.like(
      await page.evaluate(() => (window as any).authkoaMfa.mfaStatus()),
      { totp: false, passkeys: 1 },
      'with the session: the summary',
    );
    t.deepEqual(errors, []);
  });
}

test("the page's passkey refusal: another browser's authenticator has no passkey of this account, and the page says so", async (t) => {
  const app = await startApp(t);
  const first = await openPage(t, app.url, false);
  t.is((await passwordLogin(first.page)).status, 200);
  await first.page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  app.required.on = true;
  const { page, errors } = await openPage(t, app.url, false);
  t.is((await passwordLogin(page)).json.mfa_required, true);
  await page.goto(`${app.url}/auth/mfa/page`);
  await page.click('#passkey');
  await page.waitForFunction(() => document.getElementById('mfa-error')?.textContent !== '');
  t.is(await page.textContent('#mfa-error'), 'The passkey prompt was cancelled or timed out.');
  t.regex(page.url(), /\/auth\/mfa\/page$/);
  t.false(await page.isDisabled('#passkey'), 'the button can be pressed again');
  await page.goto(`${app.url}/page`);
  const failed = await page.evaluate(() =>
    (window as any).authkoaMfa.verifyMfaWithPasskey().then(
      () => null,
      (e: Error) => e.name,
    ),
  );
  t.is(failed, 'NotAllowedError', "the helper passes the browser's refusal on unchanged");
  t.deepEqual(errors, []);
});
