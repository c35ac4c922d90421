/**
 * Sessions per device in real headless Chromium, on the demo (`npm start`) and its "Your devices"
 * section: three browser contexts (three devices, each its own cookies and User-Agent) log in as the demo
 * user. A lists them, logs B out from its row, and later logs out everywhere else; B and C are then refused
 * with session_revoked, before and after a reload, and their pages say the session was ended from another
 * device. The demo runs on an
 * injected clock that follows the real one and is moved past the 5-minute tokenDuration by hand, so an
 * ended session meets its refresh without any waiting; every wait is for a condition on the page.
 */
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { useChromium } from '../helpers/browser.js';
import { decodeJwt } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

const browser = useChromium(test);
/** The demo's tokenDuration is 5 minutes: one step of the clock past it makes every token expire. */
const PAST_TOKEN_DURATION = 6 * 60_000;
const SCREENSHOT = '/tmp/sessions-devices.png';

/** The real clock plus an offset the test moves: logins keep their real order, and tokens expire on demand. */
function movableClock() {
  let offset = 0;
  const clock = () => Date.now() + offset;
  clock.advance = (ms: number) => void (offset += ms);
  return clock;
}

/** The User-Agent a desktop Chrome sends on `system` (headless Chromium says "HeadlessChrome"), so each device has its own label. */
function chromeOn(b: Browser, system: string): string {
  return `Mozilla/5.0 (${system}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${b.version()} Safari/537.36`;
}

interface Device {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A browser context (a device with its own cookies), its page on the demo, closed at teardown. */
async function device(t: ExecutionContext, url: string, userAgent: string): Promise<Device> {
  const context = await browser().newContext({ userAgent });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/`);
  return { context, page, errors };
}

const textIs = (page: Page, selector: string, text: string) =>
  page.waitForFunction(([s, x]) => document.querySelector(s!)?.textContent === x, [selector, text]);
const rowCount = (page: Page, n: number) =>
  page.waitForFunction((k) => document.querySelectorAll('#device-list tr').length === k, n);

/** The demo's password form (provider "local", demo / demo), then the devices section shown. */
async function logIn(d: Device): Promise<void> {
  await d.page.fill('form[data-provider="local"] [name="user"]', 'demo');
  await d.page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
  await d.page.click('form[data-provider="local"] button');
  await textIs(d.page, '#status', 'Logged in as demo.');
  await d.page.waitForSelector('#devices:not([hidden]) #device-list tr');
}

/** The session id of a device's login: the `sid` of its JWT cookie; undefined once no token is left in it. */
async function sidOf(d: Device): Promise<string | undefined> {
  const jwt = (await d.context.cookies()).find((c) => c.name === 'JWT');
  return jwt && jwt.value.includes('.') ? (decodeJwt(jwt.value).sid as string) : undefined;
}

/** What the page says at the top once its session was found ended from another device. */
const ENDED = 'This session was ended from another device. Log in again to go on.';

/** Presses the page's "GET /api/private" and resolves to the status and `code` it was answered with. */
async function privateCall(page: Page): Promise<{ status: number; code?: string }> {
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/api/private')),
    page.click('[data-call="private"]'),
  ]);
  const body = (await res.json()) as { code?: string };
  return { status: res.status(), code: body.code };
}

/** The rows of "Your devices" as the page shows them. */
function rows(page: Page) {
  return page.locator('#device-list tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      sid: tr.getAttribute('data-sid'),
      current: tr.classList.contains('current'),
      cells: Array.from(tr.querySelectorAll('td'), (td) => td.textContent),
      logoutButton: !!tr.querySelector('button.device-logout'),
    })),
  );
}

async function demo(t: ExecutionContext, clock: () => number): Promise<RunningExample> {
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-sessions-demo-'), 'var'),
    env: {},
    clock,
  });
  t.teardown(() => app.close());
  return app;
}

test('"Your devices": A sees both logins, logs B out (refused at once), then logs out everywhere else; A stays logged in', async (t) => {
  const clock = movableClock();
  const app = await demo(t, clock);
  const a = await device(t, app.url, chromeOn(browser(), 'X11; Linux x86_64'));
  const b = await device(t, app.url, chromeOn(browser(), 'Macintosh; Intel Mac OS X 10_15_7'));
  t.true(await a.page.isHidden('#devices'), 'no devices section before login');
  await logIn(a);
  await logIn(b);
  const [sidA, sidB] = [await sidOf(a), await sidOf(b)];
  t.regex(sidA!, /^[0-9a-f]{40}$/);
  t.not(sidA, sidB, 'each login is its own session');

  // A's list was read at its login, before B's: Refresh reads it again.
  await a.page.click('#devices-refresh');
  await rowCount(a.page, 2);
  const listed = await rows(a.page);
  t.deepEqual(
    listed.map((r) => [r.sid, r.current, r.cells[0], r.cells[1], r.cells[4], r.logoutButton]),
    [
      [sidB, false, 'Chrome on macOS', 'local', 'Log out', true],
      [sidA, true, 'Chrome on Linux', 'local', 'This device', false],
    ],
    'newest first; this device marked and without a Log out button',
  );
  t.is(await a.page.textContent('#devices-count'), 'Logged in on 2 devices.');
  t.false(await a.page.isDisabled('#devices-end-others'));
  await a.page.locator('#devices').screenshot({ path: SCREENSHOT });
  t.log(`screenshot: ${SCREENSHOT}`);

  await a.page.click(`#device-list tr[data-sid="${sidB}"] button.device-logout`);
  await rowCount(a.page, 1);
  await textIs(a.page, '#devices-message', 'Logged out Chrome on macOS (local).');
  t.deepEqual(
    (await rows(a.page)).map((r) => [r.sid, r.current]),
    [[sidA, true]],
  );
  t.true(await a.page.isDisabled('#devices-end-others'), 'nothing else to log out');

  // B's token is still fresh: the revocation channel refuses it at once, with no store read per request.
  t.deepEqual(await privateCall(b.page), { status: 401, code: 'session_revoked' }, 'refused within tokenDuration');
  clock.advance(PAST_TOKEN_DURATION);
  t.deepEqual(await privateCall(b.page), { status: 401, code: 'session_revoked' });
  await textIs(b.page, '#status', ENDED);
  t.is(await sidOf(b), undefined, "the refused refresh cleared B's token");
  t.false(await b.page.isHidden('#login'), 'the login forms are back');
  // Reloaded, B sends no token any more; the server still tells it why (session_revoked, not no_token).
  const [user] = await Promise.all([b.page.waitForResponse((r) => r.url().endsWith('/auth/user')), b.page.reload()]);
  t.deepEqual([user.status(), ((await user.json()) as { code: string }).code], [401, 'session_revoked']);
  await textIs(b.page, '#status', ENDED);
  t.true(await b.page.isHidden('#devices'));
  t.deepEqual(
    await privateCall(a.page),
    { status: 200, code: undefined },
    'A refreshed its token through the same step of the clock',
  );
  t.is(await a.page.textContent('#status'), 'Logged in as demo.');

  const c = await device(t, app.url, chromeOn(browser(), 'Windows NT 10.0; Win64; x64'));
  await logIn(c);
  const sidC = await sidOf(c);
  await a.page.click('#devices-refresh');
  await rowCount(a.page, 2);
  t.deepEqual(
    (await rows(a.page)).map((r) => [r.sid, r.current, r.cells[0]]),
    [
      [sidC, false, 'Chrome on Windows'],
      [sidA, true, 'Chrome on Linux'],
    ],
  );
  await a.page.click('#devices-end-others');
  await rowCount(a.page, 1);
  await textIs(a.page, '#devices-message', 'Logged out everywhere else.');
  t.deepEqual(
    (await rows(a.page)).map((r) => [r.sid, r.current]),
    [[sidA, true]],
  );
  t.is(await a.page.textContent('#devices-count'), 'Logged in on this device only.');

  clock.advance(PAST_TOKEN_DURATION);
  // C finds out through its own list: the Refresh of "Your devices" is refused, and the page says why.
  await c.page.click('#devices-refresh');
  await textIs(c.page, '#status', ENDED);
  t.deepEqual(await privateCall(c.page), { status: 401, code: 'session_revoked' });
  await c.page.reload();
  await textIs(c.page, '#status', ENDED);
  t.deepEqual(
    await privateCall(a.page),
    { status: 200, code: undefined },
    'the session that logged the others out goes on',
  );
  await a.page.reload();
  await textIs(a.page, '#status', 'Logged in as demo.');
  await rowCount(a.page, 1);
  t.deepEqual(
    (await app.auth.sessions.list((await a.page.textContent('#user-id'))!)).map((r) => r.sid),
    [sidA],
    'the list in the state store agrees with the page',
  );
  t.deepEqual([...a.errors, ...b.errors, ...c.errors], []);
});
