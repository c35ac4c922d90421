/**
 * Passkeys on the reference app's page, in real headless Chromium with a CDP virtual authenticator:
 * a refused prompt shown as cancelled, dev login through the page, "Add a passkey", the list, log out,
 * a restart of the demo on the same folder, "Log in with a passkey" as the same user, a protected route,
 * Remove (then the passkey is unknown). And the listen address:
 * a loopback IP is published as localhost (WebAuthn refuses IP addresses), any other IP has no passkeys.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import { publicUrl, type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { demoProviders } from '../../example/providers.js';
import { Outbox } from '../../example/outbox.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { tempDir } from '../helpers/temp.js';

const SCREENSHOT = fileURLToPath(new URL('../.cache/demo-passkeys.png', import.meta.url));

const browser = useChromium(test);

/** A browser context with a virtual authenticator of its own (it outlives the pages, as a real one would). */
async function contextWithAuthenticator(): Promise<BrowserContext> {
  const context = await browser().newContext();
  await addVirtualAuthenticator(context, await context.newPage());
  return context;
}

async function openPage(context: BrowserContext, app: RunningExample, errors: string[]): Promise<Page> {
  const page = context.pages()[0]!;
  page.removeAllListeners('pageerror');
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${app.url}/`);
  await page.waitForSelector('#providers [data-provider="passkey"]');
  return page;
}

const statusIs = (page: Page, text: string) =>
  page.waitForFunction((t) => document.querySelector('#status')?.textContent === t, text);
/** The message beside the control pressed (`where`) starts with `text`. */
const saidIn = (page: Page, where: string, text: string) =>
  page.waitForFunction(([w, t]) => document.querySelector(w)?.textContent?.startsWith(t), [where, text] as const);

test('passkeys on the demo page: add after a dev login, listed, log out, restart, log in with it as the same user, protected route, remove', async (t) => {
  const dir = tempDir(t, 'authkoa-e2e-passkeys-');
  const start = () =>
    startCheckedExample({ port: 0, devPort: 0, host: '127.0.0.1', varDir: join(dir, 'var'), env: {} });
  let app = await start();
  t.teardown(() => app.close());
  t.regex(app.url, /^http:\/\/localhost:\d+$/, 'published as localhost: WebAuthn refuses IP addresses');
  const context = await contextWithAuthenticator();
  t.teardown(() => context.close());
  const errors: string[] = [];
  let page = await openPage(context, app, errors);
  t.true(await page.isHidden('#passkeys'), 'no passkey panel before login');
  // The authenticator holds no passkey yet: the browser refuses the prompt with NotAllowedError, as for a cancel.
  await page.click('text=Log in with a passkey');
  await saidIn(page, '#login-message', 'Passkey prompt cancelled.');

  await page.click('#providers [data-provider="dev"]');
  await page.fill('input[name="username"]', 'carol');
  await page.click('button[type="submit"]');
  await statusIs(page, 'Logged in as carol.');
  const userId = (await page.textContent('#user-id'))!;
  t.truthy(userId);
  await page.waitForSelector('#passkey-list li.none');
  t.is(await page.textContent('#passkey-list'), 'No passkeys yet.');

  await page.click('text=Add a passkey');
  await saidIn(page, '#passkeys-message', 'Passkey added.');
  await page.waitForSelector('#passkey-list li[data-passkey]');
  const ids = await page
    .locator('#passkey-list li[data-passkey]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-passkey')));
  t.is(ids.length, 1);
  t.regex((await page.textContent('#passkey-list li'))!, /never used/);
  // Named by the browser that added it (headless Chromium on Linux), which reads the same on any other device.
  t.is(await page.textContent('#passkey-list li .passkey-device'), 'Added on Chrome on Linux');

  await page.click('#logout');
  await statusIs(page, 'Not logged in.');
  t.true(await page.isHidden('#passkeys'));

  // The passkeys live in <var>/passkeys (LMDB): a restart on the same folder still knows them.
  await app.close();
  app = await start();
  page = await openPage(context, app, errors);
  await statusIs(page, 'Not logged in.');
  await page.click('text=Log in with a passkey');
  await statusIs(page, 'Logged in as carol.');
  t.is(await page.textContent('#user-id'), userId, 'the passkey logs in as the account that added it');
  await saidIn(page, '#session-message', 'Logged in through passkey.');
  await page.waitForFunction(
    (id) => /last used/.test(document.querySelector(`#passkey-list li[data-passkey="${id}"]`)?.textContent ?? ''),
    ids[0],
  );

  await page.click('[data-call="private"]');
  await page.waitForFunction(() =>
    document.querySelector('#result')?.textContent?.includes('private: any logged-in user'),
  );
  t.is(JSON.parse((await page.textContent('#result'))!).user.id, userId);

  mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  t.log(`screenshot: ${SCREENSHOT}`);

  await page.click(`#passkey-list li[data-passkey="${ids[0]}"] button`);
  await saidIn(page, '#passkeys-message', 'Passkey removed.');
  await page.waitForSelector('#passkey-list li.none');
  await page.click('#logout');
  await statusIs(page, 'Not logged in.');
  await page.click('text=Log in with a passkey');
  await saidIn(page, '#login-message', 'HTTP 401: this passkey is not registered (passkey_unknown)');
  t.deepEqual(errors, []);
});

test('the listen address: loopback IPs are published as localhost, other IPs have no passkeys, host names keep them', (t) => {
  t.deepEqual(publicUrl('127.0.0.1', 8080), { url: 'http://localhost:8080', passkeys: true });
  t.deepEqual(publicUrl('::1', 8080), { url: 'http://localhost:8080', passkeys: true });
  t.deepEqual(publicUrl('192.0.2.7', 8080), { url: 'http://192.0.2.7:8080', passkeys: false });
  t.deepEqual(publicUrl('0.0.0.0', 80), { url: 'http://0.0.0.0:80', passkeys: false });
  t.deepEqual(publicUrl('fd00::5', 8080), { url: 'http://[fd00::5]:8080', passkeys: false });
  t.deepEqual(publicUrl('demo.test', 8080), { url: 'http://demo.test:8080', passkeys: true });
  const setup = { devPort: 0, outbox: new Outbox(() => {}), env: {} };
  t.false(demoProviders(setup).some((p) => 'kind' in p && p.kind === 'passkey'));
  t.like(
    demoProviders({ ...setup, passkeyCredentials: 'lmdb:///x/passkeys' }).find(
      (p) => 'kind' in p && p.kind === 'passkey',
    ),
    { rpName: 'authkoa demo', credentials: 'lmdb:///x/passkeys' },
  );
});

test('the demo on another IP address (127.0.0.2) runs without passkeys and says why; on 127.0.0.1 it names the address', async (t) => {
  const dir = tempDir(t, 'authkoa-e2e-passkeys-');
  const lines: string[] = [];
  const other = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.2',
    varDir: join(dir, 'other'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => other.close());
  t.regex(other.url, /^http:\/\/127\.0\.0\.2:\d+$/);
  t.deepEqual(
    other.auth.providers.list().map((p) => p.name),
    ['dev', 'local', 'email', 'password'],
  );
  t.true(
    lines.some((l) => /^ {2}passkeys: {2}off: WebAuthn refuses IP addresses such as 127\.0\.0\.2/.test(l)),
    lines.join('\n'),
  );
  t.is((await fetch(`${other.url}/`)).status, 200, 'the page still loads');

  lines.length = 0;
  const local = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(dir, 'local'),
    env: {},
    log: (l) => lines.push(l),
  });
  t.teardown(() => local.close());
  t.true(lines.includes(`authkoa example listening on ${local.url} (address 127.0.0.1)`), lines.join('\n'));
  t.false(lines.some((l) => l.includes('passkeys:')));
  t.true(local.auth.providers.list().some((p) => p.name === 'passkey'));
});
