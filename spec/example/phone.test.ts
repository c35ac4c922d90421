/**
 * The demo page on a phone (390 px) and a desktop (1280 px), in real headless Chromium: logged out with the
 * account forms open (sign-up, password login, forgot password), and logged in with
 * every section that has a table or a list open (devices with another device to log out, events, a
 * passkey added on the desktop, two-step login being set up, its recovery codes, the confirmation before
 * turning it off), the page is never wider than the screen, every visible button lies within the screen's
 * width and is the element found at its centre once scrolled to, table cells are not squeezed to a word
 * per line, the user id stays on one line. Also: the login forms are hidden while logged in, a passkey is
 * labelled by the browser it was added from (a desktop's reads so on the phone), turning two-step login
 * off takes a second, deliberate press. Screenshots at both widths go to spec/.cache/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import type { BrowserContext, Page } from 'playwright-core';
import { base32Decode, totp } from '../../lib/mfa/totp.js';
import { startCheckedExample } from '../helpers/example.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { manualClock } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const browser = useChromium(test);
const CACHE = fileURLToPath(new URL('../.cache/', import.meta.url));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** What is wrong with the layout of `page` at its current width: [] when nothing is. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const doc = document.documentElement;
    if (doc.scrollWidth > width) problems.push(`page is ${doc.scrollWidth} px wide in a ${width} px window`);
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
    const visible = (el: Element) =>
      (el as HTMLElement).offsetParent !== null && getComputedStyle(el).visibility !== 'hidden';
    for (const el of Array.from(document.querySelectorAll('button, a.button, input, summary')).filter(visible)) {
      el.scrollIntoView({ block: 'center', inline: 'nearest' });
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) problems.push(`${name(el)} has no size`);
      if (r.left < 0 || r.right > width)
        problems.push(`${name(el)} spans ${Math.round(r.left)}–${Math.round(r.right)} px, outside 0–${width}`);
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(el === hit || el.contains(hit) || hit.contains(el)))
        problems.push(`${name(el)} is covered by ${hit ? name(hit) : 'nothing'}`);
    }
    // A cell squeezed to a word per line is taller than three lines though its text would fit on one.
    for (const td of Array.from(document.querySelectorAll('table td')).filter(visible)) {
      const lh = parseFloat(getComputedStyle(td).lineHeight) || 20;
      if (td.getBoundingClientRect().width < 60 && (td.textContent ?? '').trim().length > 12)
        problems.push(`${name(td)} is squeezed to ${Math.round(td.getBoundingClientRect().width)} px`);
      if (td.getBoundingClientRect().height > 4 * lh)
        problems.push(`${name(td)} is ${Math.round(td.getBoundingClientRect().height)} px tall`);
    }
    const id = document.querySelector('#user-id');
    if (id && visible(id)) {
      const lh = parseFloat(getComputedStyle(id).lineHeight) || 20;
      if (id.getBoundingClientRect().height > 1.5 * lh)
        problems.push(`the user id wraps over ${Math.round(id.getBoundingClientRect().height / lh)} lines`);
    }
    window.scrollTo(0, 0);
    return problems;
  });
}

/** Checks the layout at the phone's width and at the desktop's, and leaves the page at the phone's. */
async function bothWidths(t: ExecutionContext, page: Page, stage: string, shot?: string): Promise<void> {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    t.deepEqual(await layoutProblems(page), [], `${stage} at ${size.width} px`);
    if (shot) await page.screenshot({ path: join(CACHE, `${shot}-${size.width}.png`), fullPage: true });
  }
}

const textIs = (page: Page, selector: string, text: string) =>
  page.waitForFunction(([s, x]) => document.querySelector(s)?.textContent === x, [selector, text] as const);

async function logIn(page: Page): Promise<void> {
  await page.fill('form[data-provider="local"] [name="user"]', 'demo');
  await page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
  await page.click('form[data-provider="local"] button');
  await textIs(page, '#status', 'Logged in as demo.');
}

async function open(context: BrowserContext, url: string, errors: string[]): Promise<Page> {
  // tsx (esbuild, keepNames) wraps the helpers inside layoutProblems() in `__name(...)`: the page needs it.
  await context.addInitScript('window.__name = (f) => f;');
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/`);
  await page.waitForSelector('#providers form[data-provider="local"]');
  return page;
}

test('the page at 390 and 1280 px: no sideways scroll, every button reachable, tables stacked on the phone, the second factor turned off only once confirmed', async (t) => {
  mkdirSync(CACHE, { recursive: true });
  const clock = manualClock(); // still: the TOTP code typed below is the one of the server's own time
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-phone-'), 'var'),
    env: {},
    clock,
  });
  t.teardown(() => app.close());
  const errors: string[] = [];
  // A refused login first, so the events table has more than the logins in it.
  await fetch(`${app.url}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'demo', passwd: 'nope' }),
  });

  // The desktop adds a passkey (a factor change: it ends other sessions, so it comes before the phone logs in).
  const desktop = await browser().newContext({ viewport: DESKTOP });
  t.teardown(() => desktop.close());
  await addVirtualAuthenticator(desktop, await desktop.newPage());
  const dpage = await open(desktop, app.url, errors);
  await logIn(dpage);
  t.true(await dpage.isHidden('#login'), 'the login forms are hidden while logged in');
  await dpage.click('#passkey-add');
  await textIs(dpage, '#passkeys-message', 'Passkey added.');
  // It ends them at once, every one issued up to that millisecond: the phone's login comes a second later on
  // the server's clock, as a person's would.
  clock.advance(1000);

  const phone = await browser().newContext({ viewport: PHONE, userAgent: IPHONE_UA });
  t.teardown(() => phone.close());
  const page = await open(phone, app.url, errors);
  await bothWidths(t, page, 'logged out', 'demo-logged-out');
  // The account forms, the folded ones ("Create an account", "Forgot password") open.
  await page.click('#signup-box summary');
  await page.click('#reset-box summary');
  await page.waitForSelector('#reset [name="email"]', { state: 'visible' });
  await bothWidths(t, page, 'logged out, the account forms open', 'demo-accounts');
  await logIn(page);
  t.true(await page.isHidden('#login'));
  t.true(await page.isHidden('#account'), "the demo user is the direct provider's: no account section");
  // The id is cut short on screen; its whole value is in the title and the text a copy takes.
  const id = (await page.textContent('#user-id'))!;
  t.regex(id, /^local_[0-9a-f]{40}$/);
  t.is(await page.getAttribute('#user-id', 'title'), id);
  await page.click('#user-id-copy');
  await page.waitForFunction(() =>
    /^Id (copied|selected)/.test(document.querySelector('#session-message')?.textContent ?? ''),
  );
  await page.waitForSelector('#passkey-list li[data-passkey]');
  t.regex(
    (await page.textContent('#passkey-list li .passkey-device'))!,
    /^Added on Chrome on Linux$/,
    "the desktop's passkey is named by the desktop, on the phone",
  );
  await page.waitForFunction(() => document.querySelectorAll('#device-list tr').length === 2);
  t.deepEqual(await page.locator('#device-list .device-name').allTextContents(), ['Safari on iOS', 'Chrome on Linux']);
  await page.waitForSelector('#event-list tr[data-type="login_failed"]');
  await page.click('[data-call="private"]');
  await page.waitForFunction(() =>
    document.querySelector('#result')?.textContent?.includes('private: any logged-in user'),
  );
  await bothWidths(t, page, 'logged in, every section open', 'demo-logged-in');

  // A personal token: its secret shown once (a long unbroken string), tried, and listed with its Revoke button.
  await page.fill('#token-name', 'a script with a rather long name to wrap');
  await page.click('#token-form button[type="submit"]');
  await page.waitForFunction(() => /^akp_/.test(document.querySelector('#token-secret')?.textContent ?? ''));
  await page.click('#token-try');
  await page.waitForFunction(() => document.querySelector('#token-try-result')?.textContent?.startsWith('HTTP 200'));
  await page.waitForSelector('#token-list li[data-token] .token-revoke');
  await bothWidths(t, page, 'a token made and tried', 'demo-tokens');
  await page.locator('#tokens').screenshot({ path: join(CACHE, 'demo-tokens-card-390.png') });

  // Two-step login: its set-up (QR code, key, code form), then the recovery codes.
  await page.click('#mfa-on');
  await page.waitForSelector('#mfa-setup:not([hidden])');
  await bothWidths(t, page, 'two-step set-up');
  const secret = (await page.textContent('#mfa-secret'))!;
  await page.fill('#mfa-confirm [name="code"]', totp(base32Decode(secret), clock()));
  await page.click('#mfa-confirm button');
  await page.waitForSelector('#mfa-codes:not([hidden]) #mfa-code-list li');
  await bothWidths(t, page, 'recovery codes');
  await page.click('#mfa-codes-done');
  await page.waitForFunction(() => document.querySelector('#mfa-status')?.textContent?.startsWith('On:'));

  // Turning it off: the first press only asks; "Keep it on" leaves it on; the second press turns it off.
  await page.click('#mfa-off');
  await page.waitForSelector('#mfa-off-confirm:not([hidden])');
  await bothWidths(t, page, 'the confirmation', 'demo-confirm-off');
  t.regex((await page.textContent('#mfa-off-confirm'))!, /password alone/);
  t.is(
    (await (await page.request.get(`${app.url}/auth/mfa`, { headers: { 'X-XSRF-TOKEN': await xsrf(phone) } })).json())
      .totp,
    true,
    'one press turned nothing off',
  );
  await page.click('#mfa-off-no');
  await page.waitForSelector('#mfa-off-confirm', { state: 'hidden' });
  t.regex((await page.textContent('#mfa-status'))!, /^On:/);
  await page.click('#mfa-off');
  await page.click('#mfa-off-yes');
  await textIs(page, '#mfa-message', 'Two-step login turned off.');
  // The status line is read again from the server after the message: wait for it rather than read it at once.
  await page.waitForFunction(() => document.querySelector('#mfa-status')?.textContent?.startsWith('Off:'));
  t.false(
    (await (await page.request.get(`${app.url}/auth/mfa`, { headers: { 'X-XSRF-TOKEN': await xsrf(phone) } })).json())
      .totp,
  );
  t.deepEqual(errors, []);
});

async function xsrf(context: BrowserContext): Promise<string> {
  return (await context.cookies()).find((c) => c.name === 'XSRF-TOKEN')?.value ?? '';
}

test('a session ended from the desktop: the phone is refused with session_revoked and says so, before and after a reload, at both widths', async (t) => {
  mkdirSync(CACHE, { recursive: true });
  const clock = manualClock();
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-phone-'), 'var'),
    env: {},
    clock,
  });
  t.teardown(() => app.close());
  const errors: string[] = [];
  const phone = await browser().newContext({ viewport: PHONE, userAgent: IPHONE_UA });
  t.teardown(() => phone.close());
  const page = await open(phone, app.url, errors);
  await logIn(page);
  const desktop = await browser().newContext({ viewport: DESKTOP });
  t.teardown(() => desktop.close());
  const dpage = await open(desktop, app.url, errors);
  await logIn(dpage);
  await dpage.waitForSelector('#device-list button.device-logout');
  await dpage.click('#device-list button.device-logout');
  await textIs(dpage, '#devices-message', 'Logged out Safari on iOS (local).');

  clock.advance(6 * 60_000); // past the demo's 5-minute tokenDuration: the phone's next request needs a refresh
  const [refused] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/private')),
    page.click('[data-call="private"]'),
  ]);
  t.deepEqual([refused.status(), ((await refused.json()) as { code: string }).code], [401, 'session_revoked']);
  const ENDED = 'This session was ended from another device. Log in again to go on.';
  await textIs(page, '#status', ENDED);
  t.false(await page.isHidden('#login'), 'the login forms are back');
  await bothWidths(t, page, 'ended', 'demo-ended');

  // Reloaded, the phone sends no token any more, only the mark: still told why.
  const [user] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/auth/user')), page.reload()]);
  t.deepEqual([user.status(), ((await user.json()) as { code: string }).code], [401, 'session_revoked']);
  await textIs(page, '#status', ENDED);
  // Logging in again replaces the mark.
  await logIn(page);
  t.deepEqual(errors, []);
});

test("an account's own section at 390 and 1280 px: its forms and the question before deleting, nothing off the screen", async (t) => {
  mkdirSync(CACHE, { recursive: true });
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-phone-'), 'var'),
    env: {},
  });
  t.teardown(() => app.close());
  await app.auth.accounts!.create({
    email: 'ann@example.com',
    password: 'ann-s password',
    name: 'Ann',
    confirmed: true,
  });
  const errors: string[] = [];
  const phone = await browser().newContext({ viewport: PHONE, userAgent: IPHONE_UA });
  t.teardown(() => phone.close());
  const page = await open(phone, app.url, errors);
  await page.fill('#password-login [name="user"]', 'ann@example.com');
  await page.fill('#password-login [name="passwd"]', 'ann-s password');
  await page.click('#password-login button');
  await textIs(page, '#status', 'Logged in as Ann.');
  await page.waitForSelector('#account:not([hidden])');
  await bothWidths(t, page, 'an account logged in', 'demo-account');
  await page.click('#account-delete');
  await page.waitForSelector('#account-delete-confirm:not([hidden])');
  await bothWidths(t, page, 'the question before deleting');
  t.deepEqual(errors, []);
});
