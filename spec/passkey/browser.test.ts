/**
 * Passkeys end to end in real headless Chromium with a CDP virtual authenticator (ctap2, internal,
 * resident keys, user verification): log in with the dev provider, add a passkey, log out, log in with
 * the passkey, call a protected route; then each refusal. WebAuthn refuses IP addresses as relying
 * party ids, so the app's `url` is http://localhost:<port> (Chromium resolves it to 127.0.0.1).
 */
import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import type { ProviderEntry } from '../../lib/index.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { startPasskeyApp, type PasskeyApp } from './fixtures.js';

const BUNDLE = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'browser', 'passkey.js');

const browser = useChromium(test);

/** The passkey app with the test page and the built bundle served. */
async function startPageApp(
  t: ExecutionContext,
  state?: StateStore,
  providers?: ProviderEntry[],
  host?: string,
): Promise<PasskeyApp> {
  const app = await startPasskeyApp(t, state, providers, host);
  const bundle = await readFile(BUNDLE, 'utf8');
  app.router.get('/page', (ctx) => {
    ctx.type = 'html';
    ctx.body = '<!doctype html><meta charset="utf-8"><title>passkeys</title><script src="/passkey.js"></script>';
  });
  app.router.get('/passkey.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = bundle;
  });
  return app;
}

/** A page with a virtual authenticator of its own. */
async function pageWithAuthenticator(t: ExecutionContext, app: PasskeyApp): Promise<Page> {
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page);
  await page.goto(`${app.url}/page`);
  return page;
}

/** Logs in through the dev provider's form and comes back to /page. */
async function devLogin(page: Page, app: PasskeyApp, user = 'dev_user'): Promise<void> {
  await page.goto(`${app.url}/auth/dev/login?from=${encodeURIComponent(`${app.url}/page`)}`);
  await page.fill('input[name=username]', user);
  await Promise.all([page.waitForURL(`${app.url}/page`), page.click('button')]);
}

/** fetch() in the page, with the XSRF header from the cookie; resolves status and JSON. */
function pageFetch(page: Page, path: string, init: { method?: string; body?: unknown } = {}) {
  return page.evaluate(
    async ({ path, init }) => {
      const xsrf =
        document.cookie
          .split('; ')
          .find((c) => c.startsWith('XSRF-TOKEN='))
          ?.slice(11) ?? '';
      const res = await fetch(path, {
        method: init.method ?? 'GET',
        headers: { 'X-XSRF-TOKEN': xsrf, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    { path, init },
  );
}

test('dev login, add a passkey, log out, log in with the passkey, call a protected route', async (t) => {
  const app = await startPageApp(t);
  const page = await pageWithAuthenticator(t, app);
  await devLogin(page, app);
  const me = await pageFetch(page, '/private');
  t.is(me.status, 200);
  const userId = me.json.user.id as string;
  t.regex(userId, /^dev_/);

  const added = await page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  t.regex(added.id, /^[A-Za-z0-9_-]+$/);
  const list = await pageFetch(page, '/auth/passkey/list');
  t.is(list.status, 200);
  t.deepEqual(
    list.json.map((p: { id: string }) => p.id),
    [added.id],
  );

  t.is((await pageFetch(page, '/auth/logout')).status, 200);
  t.is((await pageFetch(page, '/private')).status, 401, 'logged out');

  const user = await page.evaluate(() => (window as any).authkoaPasskey.loginWithPasskey());
  t.is(user.id, userId, 'the passkey logs in as the account that added it');
  t.is(user.name, 'dev_user');
  const after = await pageFetch(page, '/private');
  t.is(after.status, 200);
  t.is(after.json.user.id, userId);
});

/**
 * The page's own steps of a passkey login, so a test can hold on to (and replay or change) the assertion;
 * with the browser's challenge-binding cookie, which a post of the assertion from the test must carry.
 */
async function assertion(page: Page): Promise<{ body: unknown; cookie: string }> {
  const body = await page.evaluate(async () => {
    const options = await (await fetch('/auth/passkey/login/options', { method: 'POST' })).json();
    const publicKey = (PublicKeyCredential as any).parseRequestOptionsFromJSON(options);
    const credential = (await navigator.credentials.get({ publicKey })) as any;
    return credential.toJSON();
  });
  const binding = (await page.context().cookies()).find((c) => c.name === 'passkey-challenge');
  return { body, cookie: binding ? `${binding.name}=${binding.value}` : '' };
}

/** Posts an assertion to `target` as the browser that asked for its challenge would. */
function postAssertion(target: string, a: { body: unknown; cookie: string }) {
  return fetch(`${target}/auth/passkey/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: a.cookie },
    body: JSON.stringify(a.body),
  });
}

test('refusals: a replayed assertion, a wrong origin, a removed passkey, a counter that went backwards', async (t) => {
  const state = memoryStateStore();
  const app = await startPageApp(t, state);
  const page = await pageWithAuthenticator(t, app);
  await devLogin(page, app);
  const { id } = await page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  await pageFetch(page, '/auth/logout');

  const post = postAssertion;
  const once = await assertion(page);
  t.is((await post(app.url, once)).status, 200, 'the assertion logs in once');
  const replay = await post(app.url, once);
  t.is(replay.status, 400);
  t.is(((await replay.json()) as { code: string }).code, 'challenge_invalid', 'its challenge is spent');

  // Another origin (another port) sharing the same passkeys and challenges: the browser signed for this one.
  const other = await startPageApp(t, state);
  const elsewhere = await post(other.url, await assertion(page));
  t.is(elsewhere.status, 401);
  const refusal = (await elsewhere.json()) as { code: string; error: string };
  t.is(refusal.code, 'passkey_invalid');
  t.regex(refusal.error, /origin/i);

  // A counter that went backwards: the store says the authenticator already counted far beyond it.
  const entry = (await state.get<Record<string, unknown>>('passkey', id))!;
  t.true(await state.replace('passkey', id, entry.rev, { ...entry.value, counter: 1_000_000 }, entry.expiresAt));
  const cloned = await post(app.url, await assertion(page));
  t.is(cloned.status, 401);
  t.is(((await cloned.json()) as { code: string }).code, 'passkey_invalid');

  // Removed through the API by its owner: then unknown.
  await devLogin(page, app);
  t.is((await pageFetch(page, `/auth/passkey/${id}`, { method: 'DELETE' })).status, 204);
  t.deepEqual((await pageFetch(page, '/auth/passkey/list')).json, []);
  await pageFetch(page, '/auth/logout');
  // The authenticator still holds the key and signs; the server no longer knows it.
  const removed = await post(app.url, await assertion(page));
  t.is(removed.status, 401);
  t.is(((await removed.json()) as { code: string }).code, 'passkey_unknown');
});

test('refusal: an assertion for another rpID is refused, on the same origin', async (t) => {
  // The browser signs for the rpID of the options it was given (app.localhost); the app then restarts on
  // the same origin configured with rpID localhost (a suffix of the host it may legally claim). The
  // origin and the (shared) challenge still match; only the rpID differs.
  const state = memoryStateStore();
  const providers = (rpID: string) => [
    { kind: 'dev' as const, port: 0 },
    { kind: 'passkey' as const, rpName: 'tests', rpID },
  ];
  const first = await startPageApp(t, state, providers('app.localhost'), 'app.localhost');
  const page = await pageWithAuthenticator(t, first);
  await devLogin(page, first);
  await page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  const signed = await assertion(page);
  // The first app stops; the second takes over its listening socket (closing it and binding the port again
  // would leave a moment in which another process could take the port).
  await first.auth.close();
  const second = await startPasskeyApp(t, state, providers('localhost'), 'app.localhost', first);
  t.is(second.url, first.url, 'the same origin');
  // Node does not resolve *.localhost: post to the loopback address (the origin the server checks is the
  // one the browser signed into the response, not this request's Host).
  const res = await postAssertion(`http://127.0.0.1:${second.port}`, signed);
  t.is(res.status, 401);
  const body = (await res.json()) as { code: string; error: string };
  t.is(body.code, 'passkey_invalid');
  t.regex(body.error, /RP ID/i);
});

test("login CSRF: another site's text/plain form carrying the attacker's own assertion leaves the victim's browser logged out; each of the three locks holds alone", async (t) => {
  const app = await startPageApp(t);
  // The attacker, in a browser of their own: a passkey on their account, and an assertion for a challenge they asked for.
  const attacker = await pageWithAuthenticator(t, app);
  await devLogin(attacker, app, 'mallory');
  await attacker.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  await pageFetch(attacker, '/auth/logout');

  // The victim opens the attacker's page on another site, which posts the assertion as a text/plain
  // form: `name=value` with the name and value cut so that the body parses as JSON.
  const evil = await startPasskeyApp(t, memoryStateStore(), [{ kind: 'dev', port: 0 }], '127.0.0.1');
  const stolen = await assertion(attacker);
  const json = JSON.stringify({ ...(stolen.body as object), pad: '' });
  const cut = json.lastIndexOf('"pad":"') + '"pad":"'.length;
  evil.router.get('/evil', (ctx) => {
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    ctx.type = 'html';
    ctx.body = `<!doctype html><form method="POST" enctype="text/plain" action="${app.url}/auth/passkey/login"><input name="${esc(json.slice(0, cut))}" value="${esc(json.slice(cut))}"></form><script>document.forms[0].submit()</script>`;
  });
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const victim = await context.newPage();
  const [answer] = await Promise.all([
    victim.waitForResponse(`${app.url}/auth/passkey/login`),
    victim.goto(`${evil.url}/evil`),
  ]);
  t.is(answer.status(), 403);
  t.is((await answer.json()).code, 'origin_mismatch');
  t.deepEqual(
    (await context.cookies(app.url)).filter((c) => c.name === 'JWT'),
    [],
    'the victim has no session',
  );

  // Each lock alone, for a request that passes the others (a fresh assertion each time, the challenge being single-use).
  const post = (a: { body: unknown; cookie: string }, headers: Record<string, string>, body = JSON.stringify(a.body)) =>
    fetch(`${app.url}/auth/passkey/login`, { method: 'POST', headers, body });
  const viaText = await assertion(attacker);
  const text = await post(viaText, { 'content-type': 'text/plain', cookie: viaText.cookie });
  t.is(text.status, 415, 'a same-site text/plain body is not JSON');
  t.is(((await text.json()) as { code: string }).code, 'unsupported_media_type');

  const unbound = await assertion(attacker);
  const elsewhere = await post(unbound, { 'content-type': 'application/json' });
  t.is(elsewhere.status, 400, 'an assertion posted without the browser that asked for its challenge');
  t.is(((await elsewhere.json()) as { code: string }).code, 'challenge_invalid');

  const foreign = await assertion(attacker);
  const fromEvil = await post(foreign, {
    'content-type': 'application/json',
    cookie: foreign.cookie,
    origin: evil.url,
  });
  t.is(fromEvil.status, 403, 'a JSON post from another origin');

  const own = await assertion(attacker);
  t.is(
    (await post(own, { 'content-type': 'application/json', cookie: own.cookie })).status,
    200,
    'and the same assertion from its own browser logs in',
  );
});
