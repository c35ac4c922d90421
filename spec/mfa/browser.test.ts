/**
 * Two-step login in real headless Chromium, on the demo (`npm start`) with its LMDB stores and the real
 * clock: the secret is read off the page the way a phone reads it (a screenshot of the QR <img>, decoded
 * with jsQR), the codes computed by the `otpauth` library. The demo page's own prompt after a password
 * login (code, recovery code, a spent recovery code refused, turning it off); the built-in second-step
 * page after a dev login (code, recovery code); the built-in page's set-up of a login `mfa.required` sends
 * there. The passkey as the second factor is in browser-passkey.test.ts.
 */
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import jsqr from 'jsqr';
import * as OTPAuth from 'otpauth';
import type { Page, Response } from 'playwright-core';
import { PNG } from 'pngjs';
import { type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { useChromium } from '../helpers/browser.js';
import { startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { wrongCode } from './fixtures.js';

// jsqr is CommonJS whose typings declare an ES default export: under NodeNext the default import is
// module.exports, which jsqr also exposes as its `default` property (as in qr.test.ts).
const jsQR = jsqr.default;
const browser = useChromium(test);
const quiet = { info() {}, warn() {}, error() {} };

/** The demo on its own folder, stopped at teardown. */
async function demo(t: ExecutionContext): Promise<RunningExample> {
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-mfa-demo-'), 'var'),
    env: {},
  });
  t.teardown(() => app.close());
  return app;
}

/** A fresh page (its own cookies), closed at teardown, and the script errors it has had so far. */
async function newPage(t: ExecutionContext): Promise<{ page: Page; errors: string[] }> {
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/** The otpauth:// URI in the QR code `selector` shows, read from a screenshot of it as a camera would. */
async function readQr(page: Page, selector: string): Promise<string> {
  await page.waitForFunction((s) => (document.querySelector(s) as HTMLImageElement | null)?.naturalWidth, selector);
  const png = PNG.sync.read(await page.locator(selector).screenshot());
  const found = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  if (!found) throw new Error(`no QR code readable in ${selector} (${png.width}x${png.height})`);
  return found.data;
}

/**
 * An authenticator app for one key, on the real clock. The server accepts the steps next to now (the
 * default window of one step, for phones a little off) and each step once; a test that needs several
 * codes within one 30 s step takes the next unspent of now, now+1, now−1, as a phone a step off would
 * show them. Each code is computed right before it is typed.
 */
function authenticator(otpauthUrl: string) {
  const totp = OTPAuth.URI.parse(otpauthUrl);
  if (!(totp instanceof OTPAuth.TOTP)) throw new Error(`not a TOTP URI: ${otpauthUrl}`);
  const spent = new Set<number>();
  return {
    totp,
    code(): string {
      const now = Math.floor(Date.now() / 30_000);
      const step = [now, now + 1, now - 1].find((s) => !spent.has(s));
      if (step === undefined) throw new Error('three codes in one step: the server would refuse a fourth');
      spent.add(step);
      return totp.generate({ timestamp: step * 30_000 });
    },
  };
}

/**
 * Types a code into `field`, presses `button`, and resolves to the answer of the POST to `route`. A code
 * refused as wrong is typed again once with a fresh one: it may have been computed across a step boundary.
 */
async function enterCode(
  page: Page,
  field: string,
  button: string,
  route: string,
  code: () => string,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    await page.fill(field, code());
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(route) && r.request().method() === 'POST'),
      page.click(button),
    ]);
    if (res.status() !== 403 || attempt > 0 || (await res.json()).code !== 'invalid_code') return res;
  }
}

const textIs = (page: Page, selector: string, text: string) =>
  page.waitForFunction(([s, x]) => document.querySelector(s!)?.textContent === x, [selector, text]);
const textStarts = (page: Page, selector: string, text: string) =>
  page.waitForFunction(([s, x]) => document.querySelector(s!)?.textContent?.startsWith(x!), [selector, text]);

/** On the demo page, logged in: turns two-step login on with the QR code; the app and the recovery codes. */
async function turnOn(t: ExecutionContext, page: Page, screenshots?: { setup: string; codes: string }) {
  await textStarts(page, '#mfa-status', 'Off');
  await page.click('#mfa-on');
  const otpauthUrl = await readQr(page, '#mfa-qr');
  if (screenshots) await page.locator('#two-step').screenshot({ path: screenshots.setup });
  const app = authenticator(otpauthUrl);
  t.is(
    (await page.textContent('#mfa-secret'))?.trim(),
    app.totp.secret.base32,
    'the key in text is the one in the QR code',
  );
  t.is(app.totp.issuer, 'authkoa demo');
  const res = await enterCode(
    page,
    '#mfa-confirm [name=code]',
    '#mfa-confirm button',
    '/auth/mfa/totp/confirm',
    app.code,
  );
  t.is(res.status(), 200);
  await page.waitForSelector('#mfa-codes:not([hidden])');
  const recoveryCodes = await page.locator('#mfa-code-list li').allTextContents();
  t.is(recoveryCodes.length, 10);
  for (const c of recoveryCodes) t.regex(c, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
  if (screenshots) await page.locator('#two-step').screenshot({ path: screenshots.codes });
  await page.click('#mfa-codes-done');
  await textIs(
    page,
    '#mfa-status',
    'On: after each login, a code from your authenticator app is asked. Recovery codes left: 10.',
  );
  t.true(await page.isHidden('#mfa-codes'), 'the codes are shown once');
  return { app, recoveryCodes };
}

/** The demo's password form (provider "local", demo / demo). */
async function passwordLogin(page: Page): Promise<void> {
  await page.fill('form[data-provider="local"] [name="user"]', 'demo');
  await page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
  await page.click('form[data-provider="local"] button');
}

/** The name `/auth/user` answers the page's session with (the XSRF header copied from its cookie, as a page script would). */
function sessionUser(page: Page): Promise<string | undefined> {
  return page.evaluate(async () => {
    const xsrf = decodeURIComponent(/(?:^|; )XSRF-TOKEN=([^;]*)/.exec(document.cookie)?.[1] ?? '');
    const res = await fetch('/auth/user', { headers: { 'X-XSRF-TOKEN': xsrf } });
    return res.ok ? ((await res.json()) as { name?: string }).name : undefined;
  });
}

async function logOut(page: Page): Promise<void> {
  await page.click('#logout');
  await textIs(page, '#status', 'Not logged in.');
}

test('the demo page: turn on with the QR code, then a password login asks for the code, a recovery code works once, turn off', async (t) => {
  const demoApp = await demo(t);
  const { page, errors } = await newPage(t);
  await page.goto(`${demoApp.url}/`);
  t.true(await page.isHidden('#two-step'), 'no two-step section before login');
  await passwordLogin(page);
  await textIs(page, '#status', 'Logged in as demo.');
  const { app, recoveryCodes } = await turnOn(t, page, {
    setup: '/tmp/mfa-setup-demo.png',
    codes: '/tmp/mfa-recovery-codes.png',
  });

  await logOut(page);
  t.true(await page.isHidden('#two-step'));
  await passwordLogin(page);
  await page.waitForSelector('#second-step:not([hidden])');
  t.is(await page.textContent('#status'), 'Not logged in.', 'the password alone logs nobody in');
  t.true(await page.isHidden('#mfa-passkey'), 'no passkey: this account has none');
  await page.reload();
  await page.waitForSelector('#second-step:not([hidden])');
  t.is(await page.textContent('#status'), 'Not logged in.', 'after a reload the pending second step is asked again');
  await page.screenshot({ path: '/tmp/mfa-prompt-demo.png', fullPage: true });
  t.is(
    (await enterCode(page, '#mfa-verify [name=code]', '#mfa-verify button', '/auth/mfa/verify', app.code)).status(),
    200,
  );
  await textIs(page, '#status', 'Logged in as demo.');
  await textIs(page, '#session-message', 'Logged in with two steps.');
  t.true(await page.isHidden('#second-step'));

  await logOut(page);
  await passwordLogin(page);
  await page.waitForSelector('#second-step:not([hidden])');
  await page.click('#mfa-recovery-box summary');
  await page.fill('#mfa-recovery [name=recoveryCode]', recoveryCodes[3]!.toUpperCase());
  await page.click('#mfa-recovery button');
  await textIs(page, '#status', 'Logged in as demo.');
  await textIs(
    page,
    '#mfa-status',
    'On: after each login, a code from your authenticator app is asked. Recovery codes left: 9.',
  );

  await logOut(page);
  await passwordLogin(page);
  await page.waitForSelector('#second-step:not([hidden])');
  await page.click('#mfa-recovery-box summary');
  await page.fill('#mfa-recovery [name=recoveryCode]', recoveryCodes[3]!);
  await page.click('#mfa-recovery button');
  await textIs(page, '#second-step-message', 'HTTP 403: the code is not valid (invalid_code)');
  t.is(await page.textContent('#status'), 'Not logged in.', 'a spent recovery code does not log in');
  await page.fill('#mfa-recovery [name=recoveryCode]', recoveryCodes[4]!);
  await page.click('#mfa-recovery button');
  await textIs(page, '#status', 'Logged in as demo.');

  // Turning it off asks first: one press only shows the question.
  await page.click('#mfa-off');
  await page.click('#mfa-off-yes');
  await textIs(page, '#mfa-message', 'Two-step login turned off.');
  await textStarts(page, '#mfa-status', 'Off');
  await logOut(page);
  await passwordLogin(page);
  await textIs(page, '#status', 'Logged in as demo.');
  t.true(await page.isHidden('#second-step'), 'off: the password is enough again');
  t.deepEqual(errors, []);
});

test('the built-in second-step page after a dev login: code, then a recovery code once, then back on the demo page', async (t) => {
  const demoApp = await demo(t);
  const { page, errors } = await newPage(t);
  const devLogin = async () => {
    await page.goto(`${demoApp.url}/`);
    await page.click('#providers [data-provider="dev"]');
    await page.fill('input[name="username"]', 'carol');
    await page.click('button[type="submit"]');
  };
  await devLogin();
  await textIs(page, '#status', 'Logged in as carol.');
  const { app, recoveryCodes } = await turnOn(t, page);
  await logOut(page);

  await devLogin();
  await page.waitForURL(`${demoApp.url}/auth/mfa/page?from=%2F`);
  t.is(await page.getAttribute('#code', 'autocomplete'), 'one-time-code');
  await page.screenshot({ path: '/tmp/mfa-prompt-page.png', fullPage: true });
  await page.fill('#code', wrongCode(app.totp.toString(), Date.now()));
  await page.click('#code-form button');
  await textIs(page, '#mfa-error', 'the code is not valid');
  t.is(await page.getAttribute('#mfa-error', 'aria-live'), 'assertive');
  t.is((await enterCode(page, '#code', '#code-form button', '/auth/mfa/verify', app.code)).status(), 303);
  await page.waitForURL(`${demoApp.url}/`);
  await textIs(page, '#status', 'Logged in as carol.');
  await logOut(page);

  for (const [i, expected] of [
    [0, 'ok'],
    [0, 'the code is not valid'],
  ] as const) {
    await devLogin();
    await page.waitForURL(/\/auth\/mfa\/page/);
    await page.click('summary');
    await page.fill('#recovery-code', recoveryCodes[i]!);
    await page.click('#recovery-form button');
    if (expected !== 'ok') {
      await textIs(page, '#mfa-error', expected);
      t.regex(page.url(), /\/auth\/mfa\/page/, 'a spent recovery code stays on the page');
      break;
    }
    await page.waitForURL(`${demoApp.url}/`);
    await textIs(page, '#status', 'Logged in as carol.');
    await logOut(page);
  }
  t.deepEqual(errors, []);
});

test('the built-in page sets up the app for a login mfa.required sends there, shows the recovery codes, then goes to `from`', async (t) => {
  const app = await startApp({
    secret: 'mfa-browser-secret-0123456789abcdef',
    logger: quiet,
    providers: [{ kind: 'dev', port: 0 }],
    mfa: { store: memoryStateStore(), required: true },
  });
  t.teardown(() => app.close());
  const { page, errors } = await newPage(t);
  await page.goto(`${app.url}/auth/dev/login?from=${encodeURIComponent('/private')}`);
  await page.fill('input[name="username"]', 'dana');
  await page.click('button[type="submit"]');
  await page.waitForURL(`${app.url}/auth/mfa/page?from=%2Fprivate`);
  t.true(await page.isHidden('#scan-step'));
  await page.click('#setup');
  const otpauthUrl = await readQr(page, '#qr');
  const box = await page.locator('#qr').boundingBox();
  t.deepEqual([box?.width, box?.height], [220, 220]);
  const phone = authenticator(otpauthUrl);
  t.is((await page.textContent('#secret'))?.trim(), phone.totp.secret.base32);
  t.is(
    (await enterCode(page, '#enroll-code', '#confirm-form button', '/auth/mfa/totp/confirm', phone.code)).status(),
    200,
  );
  await page.waitForSelector('#codes-step:not([hidden])');
  t.is(await page.locator('#code-list li').count(), 10);
  await page.screenshot({ path: '/tmp/mfa-page-recovery-codes.png', fullPage: true });
  await page.click('#continue');
  await page.waitForURL(`${app.url}/private`);
  t.is(await sessionUser(page), 'dana', 'the login finished with the set-up');
  t.deepEqual(errors, []);
});
