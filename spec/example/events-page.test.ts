/**
 * The demo page's "Recent auth events" in real headless Chromium: after logging in on the page it lists
 * the login and the refusals made before it (one on the page, one from elsewhere whose typed name is shown as
 * text, never as markup), it is read again after a protected call that renewed the token, and it goes away
 * at logout. The demo runs on a clock the test moves past the 5-minute tokenDuration, so the renewal
 * needs no waiting; every wait is for a condition on the page.
 */
import { join } from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { startCheckedExample } from '../helpers/example.js';
import { useChromium } from '../helpers/browser.js';
import { tempDir } from '../helpers/temp.js';

const browser = useChromium(test);
const SCREENSHOT = '/tmp/demo-events.png';
/** The demo's tokenDuration is 5 minutes: one step of the clock past it makes the page's token expire. */
const PAST_TOKEN_DURATION = 6 * 60_000;
/** A user name typed by anyone: shown to the demo user as text; as markup it would run this script. */
const HOSTILE_NAME = '<img src=x onerror="window.pwned=1">';

/** The real clock plus an offset the test moves. */
function movableClock() {
  let offset = 0;
  const clock = () => Date.now() + offset;
  clock.advance = (ms: number) => void (offset += ms);
  return clock;
}

/** The rows of "Recent auth events" as the page shows them: type, time's title, provider, details. */
function eventRows(page: Page) {
  return page.locator('#event-list tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      type: tr.getAttribute('data-type'),
      iso: tr.querySelector('td.when')?.getAttribute('title'),
      cells: Array.from(tr.querySelectorAll('td'), (td) => td.textContent),
    })),
  );
}

/** Waits until the newest row of the list is of `type` and the list has `count` rows. */
const newestIs = (page: Page, type: string, count: number) =>
  page.waitForFunction(
    ([ty, n]) => {
      const trs = document.querySelectorAll('#events:not([hidden]) #event-list tr');
      return trs.length === n && trs[0]?.getAttribute('data-type') === ty;
    },
    [type, count] as const,
  );

async function submitLocal(page: Page, passwd: string): Promise<void> {
  await page.fill('form[data-provider="local"] [name="user"]', 'demo');
  await page.fill('form[data-provider="local"] [name="passwd"]', passwd);
  await page.click('form[data-provider="local"] button');
}

test('after logging in on the page, "Recent auth events" lists the login and the refusals before it; it follows a renewal, and goes at logout', async (t) => {
  const clock = movableClock();
  const lines: string[] = [];
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-events-page-'), 'var'),
    env: {},
    clock,
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());
  // A refusal from elsewhere, before the page logs in: the demo user sees it, with the name as it was typed.
  const refused = await fetch(`${app.url}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: HOSTILE_NAME, passwd: 'x' }),
  });
  t.is(refused.status, 403);

  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${app.url}/`);
  await page.waitForSelector('#providers form[data-provider="local"]');
  t.true(await page.isHidden('#events'), 'no events section before login');
  // A refused login on the page itself (the forms are there only while nobody is logged in): listed after the login.
  await submitLocal(page, 'wrong');
  await page.waitForFunction(() => document.querySelector('#login-message')?.textContent?.startsWith('HTTP 403'));

  await submitLocal(page, 'demo');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as demo.');
  await newestIs(page, 'login', 3);
  const [login, own, failed] = await eventRows(page);
  t.is(own!.cells[3], 'bad_credentials (HTTP 403) for "demo" from 127.0.0.1');
  t.is(login!.cells[0], 'login');
  t.is(login!.cells[2], 'local');
  t.regex(login!.cells[3]!, /^pwd from 127\.0\.0\.1, session \S{8}…$/);
  t.regex(login!.iso!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.regex(login!.cells[1]!, /\d\d.\d\d.\d\d/, 'the time of day, to the second');
  t.deepEqual(failed!.cells.slice(2), ['local', `bad_credentials (HTTP 403) for "${HOSTILE_NAME}" from 127.0.0.1`]);
  t.is(await page.locator('#event-list img').count(), 0, 'the typed name is text, not an element');
  t.is(await page.evaluate(() => (window as Window & { pwned?: number }).pwned), undefined);
  await page.locator('#events').screenshot({ path: SCREENSHOT });
  t.log(`screenshot: ${SCREENSHOT}`);

  // The token expires; the next protected call renews it, and the list read after it shows the refresh.
  clock.advance(PAST_TOKEN_DURATION);
  await page.click('[data-call="private"]');
  await newestIs(page, 'refresh', 4);
  t.deepEqual(
    (await eventRows(page)).map((r) => r.type),
    ['refresh', 'login', 'login_failed', 'login_failed'],
  );

  await page.click('#logout');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
  t.true(await page.isHidden('#events'), 'hidden once logged out');
  t.is(await page.locator('#event-list tr').count(), 0, 'and emptied: the list belongs to the user who left');
  // Printed by a listener, which runs after the answer: polled for, with a deadline.
  for (
    const deadline = Date.now() + 10_000;
    !lines.some((l) => /^event: logout \S+ via local$/.test(l)) && Date.now() < deadline;
  )
    await new Promise((r) => setTimeout(r, 50));
  t.true(
    lines.some((l) => /^event: logout \S+ via local$/.test(l)),
    lines.join('\n'),
  );
  t.deepEqual(errors, []);
});
