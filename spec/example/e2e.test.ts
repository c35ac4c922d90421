/**
 * The reference app end to end in real headless Chromium: the page lists providers, logs in through
 * the dev OAuth2 server's form, shows the user and the proxied avatar, calls protected routes with
 * the XSRF header, logs out; then logs in through the direct provider's form on the page, through an email
 * link from the outbox, and with an account: signed up, confirmed and reset through links from the outbox.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { ensureBrowserBundle, launchChromium } from '../helpers/browser.js';
import { suiteTempDir } from '../helpers/temp.js';

let app: RunningExample;
let browser: Browser;
// Kept after the run (dir is removed), beside the passkeys test's screenshot.
const SCREENSHOT = fileURLToPath(new URL('../.cache/demo-logged-in.png', import.meta.url));

test.before(async () => {
  await ensureBrowserBundle();
  app = await startCheckedExample({ port: 0, devPort: 0, host: '127.0.0.1', varDir: join(dir, 'var'), env: {} });
  browser = await launchChromium();
});
test.after.always(async () => {
  await browser?.close();
  await app?.close();
});
// Declared after the hook above, so the folder goes once the app (its LMDB stores live in dir/var) has closed.
const dir = suiteTempDir(test, 'authkoa-e2e-');

async function openPage(): Promise<Page> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${app.url}/`);
  await page.waitForSelector('#providers [data-provider="dev"]');
  (page as Page & { errors?: string[] }).errors = errors;
  return page;
}

test.serial('dev login through the page: user and avatar shown, protected route called, logout', async (t) => {
  const page = await openPage();
  t.deepEqual(
    await page
      .locator('#providers > *')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-provider') ?? e.className)),
    ['dev', 'local', 'provider verified', 'passkey'],
  );
  await page.click('#providers [data-provider="dev"]');
  await page.waitForSelector('input[name="username"]');
  t.regex(page.url(), /\/login\/oauth\/authorize\?/);
  await page.fill('input[name="username"]', 'alice');
  const avatar = page.waitForResponse((r) => r.url().includes('/avatar/'));
  await page.click('button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as alice.');
  t.is(page.url(), `${app.url}/`);
  t.is(await page.textContent('#user-name'), 'alice');
  const image = await avatar;
  t.is(image.status(), 200);
  t.regex(image.headers()['content-type'] ?? '', /^image\//);
  t.regex((await page.getAttribute('#avatar', 'src'))!, new RegExp(`^${app.url}/avatar/[0-9a-f]{40}\\.image$`));
  await page.waitForFunction(() => (document.querySelector('#avatar') as HTMLImageElement).naturalWidth > 0);

  await page.click('[data-call="private"]');
  await page.waitForFunction(() =>
    document.querySelector('#result')?.textContent?.includes('private: any logged-in user'),
  );
  t.regex((await page.textContent('#result'))!, /"name": "alice"/);
  await page.click('[data-call="admin"]');
  await page.waitForFunction(() => document.querySelector('#result')?.textContent?.startsWith('HTTP 403'));

  mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  t.log(`screenshot: ${SCREENSHOT}`);

  await page.click('#logout');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
  await page.click('[data-call="private"]');
  await page.waitForFunction(() => document.querySelector('#result')?.textContent?.startsWith('HTTP 401'));
  t.deepEqual((page as Page & { errors?: string[] }).errors, []);
  await page.close();
});

test.serial(
  'direct login through the page form; the demo user passes admin and rbac routes; a refused login is said beside the form',
  async (t) => {
    const page = await openPage();
    // A refusal first: said beside the form, not at the foot of the page.
    await page.fill('form[data-provider="local"] [name="user"]', 'demo');
    await page.fill('form[data-provider="local"] [name="passwd"]', 'wrong');
    await page.click('form[data-provider="local"] button');
    await page.waitForFunction(() => document.querySelector('#login-message')?.textContent?.startsWith('HTTP 403'));
    t.true(await page.locator('#login-message').evaluate((el) => el.classList.contains('error')), 'shown as a refusal');
    // A refused login keeps what was typed, to correct it.
    t.is(await page.inputValue('form[data-provider="local"] [name="user"]'), 'demo');
    await page.fill('form[data-provider="local"] [name="user"]', 'demo');
    await page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
    await page.click('form[data-provider="local"] button');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as demo.');
    // The form is emptied after a successful login: no password left waiting in it.
    t.is(await page.inputValue('form[data-provider="local"] [name="user"]'), '');
    t.is(await page.inputValue('form[data-provider="local"] [name="passwd"]'), '');
    t.true(await page.isHidden('#login'), 'the login forms are hidden while logged in');
    t.is(await page.textContent('#session-message'), 'Logged in through local.');
    t.is(await page.textContent('#user-role'), 'editor');
    await page.click('[data-call="admin"]');
    await page.waitForFunction(() => document.querySelector('#result')?.textContent?.includes('admin only'));
    await page.click('[data-call="editors"]');
    await page.waitForFunction(() => document.querySelector('#result')?.textContent?.includes('editors only'));
    await page.click('#logout');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
    t.false(await page.isHidden('#login'), 'and shown again once logged out');
    await page.close();
  },
);

test.serial('email login through the outbox: the link shows a confirm page whose button logs in', async (t) => {
  const page = await openPage();
  await page.fill('form.verified [name="user"]', 'bob');
  await page.fill('form.verified [name="address"]', 'bob@example.com');
  await page.click('form.verified button');
  await page.waitForFunction(() => document.querySelector('#login-message')?.textContent?.startsWith('Sent.'));
  t.is(await page.inputValue('form.verified [name="address"]'), '', 'the form is emptied once the link is sent');
  t.is(app.outbox.list()[0]?.to, 'bob@example.com');
  await page.goto(`${app.url}/outbox`);
  await page.click('.outbox a');
  await page.click('button');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as bob.');
  t.is(page.url(), `${app.url}/`);
  await page.close();
});

/** The text of `selector` once it starts with `prefix`. */
async function textStarting(page: Page, selector: string, prefix: string): Promise<string> {
  await page.waitForFunction(([s, p]) => document.querySelector(s)?.textContent?.startsWith(p) === true, [
    selector,
    prefix,
  ] as const);
  return (await page.textContent(selector))!;
}

test.serial(
  'an account through the page: sign-up → the outbox link → Confirm → logged in; forgot password → the outbox link → a new password → a password login',
  async (t) => {
    const page = await openPage();
    await page.waitForSelector('#accounts #password-login');
    await page.click('#signup-box summary');
    await page.fill('#signup [name="name"]', 'Dana');
    await page.fill('#signup [name="email"]', 'dana@example.com');
    await page.fill('#signup [name="password"]', 'dana-first-password');
    await page.click('#signup button');
    await textStarting(page, '#accounts-message', 'Check your email');
    t.is(await page.inputValue('#signup [name="password"]'), '', 'the form is emptied once the link is sent');
    t.like(app.outbox.list()[0], { to: 'dana@example.com', subject: 'Confirm your address' });

    // The right password before the address is confirmed: answered as a wrong one, and a new link sent.
    await page.fill('#password-login [name="user"]', 'dana@example.com');
    await page.fill('#password-login [name="passwd"]', 'dana-first-password');
    await page.click('#password-login button');
    await textStarting(page, '#accounts-message', 'Wrong address or password. If you just signed up, confirm');
    t.like(app.outbox.list()[0], { to: 'dana@example.com', subject: 'Confirm your address' });

    // The newest message's link opens authkoa's page, whose button confirms the address and logs the browser in.
    await page.goto(`${app.url}/outbox`);
    await page.click('.outbox li:first-child a');
    t.regex(page.url(), /\/auth\/password\/confirm\?token=/);
    t.regex((await page.textContent('body'))!, /dana@example\.com/);
    // Its POST goes on to the page the sign-up was made on (`from`), logged in.
    await Promise.all([page.waitForURL(`${app.url}/`), page.click('button')]);
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as Dana.');
    t.true(await page.isHidden('#accounts'), 'the account forms are hidden while logged in');
    await page.click('#logout');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');

    await page.click('#reset-box summary');
    await page.fill('#reset [name="email"]', 'dana@example.com');
    await page.click('#reset button');
    await textStarting(page, '#accounts-message', 'If the address has an account');
    t.like(app.outbox.list()[0], { to: 'dana@example.com', subject: 'Reset your password' });
    await page.goto(`${app.url}/outbox`);
    await page.click('.outbox li:first-child a');
    await page.fill('#password', 'dana-second-password');
    await Promise.all([page.waitForNavigation(), page.click('button')]);
    t.is(await page.textContent('h1'), 'Password changed');

    await page.goto(`${app.url}/`);
    await page.fill('#password-login [name="user"]', 'dana@example.com');
    await page.fill('#password-login [name="passwd"]', 'dana-first-password');
    await page.click('#password-login button');
    // The old password is said as an unconfirmed account's login is: the page cannot tell them apart either.
    await textStarting(page, '#accounts-message', 'Wrong address or password.');
    await page.fill('#password-login [name="passwd"]', 'dana-second-password');
    await page.click('#password-login button');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as Dana.');
    t.is(await page.textContent('#session-message'), 'Logged in through password.');
    // Not an admin: the demo user's rights go to the direct provider's "demo", not to a name anyone can sign up with.
    await page.click('[data-call="admin"]');
    await page.waitForFunction(() => document.querySelector('#result')?.textContent?.startsWith('HTTP 403'));
    t.deepEqual((page as Page & { errors?: string[] }).errors, []);
    await page.close();
  },
);

test.serial(
  "an account's own section: a new password (a wrong current one said), a new address through the outbox, deletion after a second press",
  async (t) => {
    await app.auth.accounts!.create({
      email: 'eve@example.com',
      password: 'eve-first-password',
      name: 'Eve',
      confirmed: true,
    });
    const page = await openPage();
    await page.waitForSelector('#accounts #password-login');
    t.true(await page.isHidden('#account'), 'nobody logged in: no account section');
    await page.fill('#password-login [name="user"]', 'eve@example.com');
    await page.fill('#password-login [name="passwd"]', 'eve-first-password');
    await page.click('#password-login button');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as Eve.');
    await page.waitForSelector('#account:not([hidden])');

    await page.fill('#change-password [name="current"]', 'not the password');
    await page.fill('#change-password [name="password"]', 'eve-second-password');
    await page.click('#change-password button');
    t.regex(await textStarting(page, '#account-message', 'HTTP 403'), /bad_credentials/);
    await page.fill('#change-password [name="current"]', 'eve-first-password');
    await page.click('#change-password button');
    await textStarting(page, '#account-message', 'Password changed');

    await page.fill('#change-email [name="email"]', 'eve.new@example.com');
    await page.click('#change-email button');
    await textStarting(page, '#account-message', 'Check the new address');
    const toNew = app.outbox.list().find((m) => m.to === 'eve.new@example.com');
    t.like(toNew, { subject: 'Confirm your new address' });
    t.like(app.outbox.list()[0], { to: 'eve@example.com', subject: 'Your address is being changed' });
    await page.goto(`${app.url}/outbox`);
    await page.click(`.outbox li:nth-child(${app.outbox.list().indexOf(toNew!) + 1}) a`);
    await Promise.all([page.waitForNavigation(), page.click('button')]);
    t.is(await page.textContent('h1'), 'Address changed');
    await page.goto(`${app.url}/`);
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as Eve.');
    t.is((await app.auth.accounts!.find('eve.new@example.com'))?.name, 'Eve');

    // Deleting asks first; "Keep it" keeps it.
    await page.click('#account-delete');
    await page.click('#account-delete-no');
    t.true(await page.isHidden('#account-delete-confirm'));
    await page.click('#account-delete');
    await page.click('#account-delete-yes');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
    t.is(await page.textContent('#session-message'), 'Account deleted.');
    t.true(await page.isHidden('#account'));
    t.is(await app.auth.accounts!.find('eve.new@example.com'), undefined);
    t.deepEqual((page as Page & { errors?: string[] }).errors, []);
    await page.close();
  },
);

test.serial(
  "the Tokens card: a token made, shown once, used as a bearer by the page's button, listed, revoked and then refused",
  async (t) => {
    const page = await openPage();
    await page.fill('form[data-provider="local"] [name="user"]', 'demo');
    await page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
    await page.click('form[data-provider="local"] button');
    await page.waitForFunction(() => !(document.querySelector('#tokens') as HTMLElement).hidden);
    await page.waitForFunction(() => document.querySelector('#token-list')?.textContent === 'No tokens yet.');
    await page.fill('#token-name', 'e2e script');
    await page.click('#token-form button[type="submit"]');
    await page.waitForFunction(() => /^akp_/.test(document.querySelector('#token-secret')?.textContent ?? ''));
    const secret = (await page.textContent('#token-secret'))!;
    await page.waitForSelector('#token-list [data-token]');
    t.regex(
      (await page.textContent('#token-list'))!,
      /e2e script.*no scopes.*last used never/s,
      'listed without its secret',
    );
    t.false((await page.textContent('#token-list'))!.includes(secret));
    await page.click('#token-try');
    await page.waitForFunction(() => document.querySelector('#token-try-result')?.textContent?.startsWith('HTTP '));
    t.regex((await page.textContent('#token-try-result'))!, /^HTTP 200: [\s\S]*private: any logged-in user/);
    // The same token from outside the browser: a script's call.
    const api = await fetch(`${app.url}/api/private`, { headers: { authorization: `Bearer ${secret}` } });
    t.is(api.status, 200);
    await page.click('#token-list .token-revoke');
    await page.waitForFunction(() => document.querySelector('#tokens-message')?.textContent?.startsWith('Revoked'));
    await page.waitForFunction(() => document.querySelector('#token-list')?.textContent === 'No tokens yet.');
    t.true(await page.locator('#token-new').isHidden(), 'the revoked secret is no longer shown');
    t.is((await fetch(`${app.url}/api/private`, { headers: { authorization: `Bearer ${secret}` } })).status, 401);
    t.deepEqual((page as Page & { errors?: string[] }).errors, []);
    await page.click('#logout');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
    await page.close();
  },
);

test.serial(
  "the Ways in card: the demo user links a dev identity through the dev server's page, which then logs in as the demo user; unlinked",
  async (t) => {
    const page = await openPage();
    await page.fill('form[data-provider="local"] [name="user"]', 'demo');
    await page.fill('form[data-provider="local"] [name="passwd"]', 'demo');
    await page.click('form[data-provider="local"] button');
    await page.waitForSelector('#link-start [data-link-start="dev"]');
    t.is(await page.textContent('#link-list [data-link="local"] .link-provider'), 'local', "the account's own");
    await page.click('#link-start [data-link-start="dev"]');
    await page.waitForSelector('input[name="username"]');
    await page.fill('input[name="username"]', 'carol');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#link-list [data-link="dev"]');
    t.is(page.url(), `${app.url}/`, 'back on the page');
    t.regex((await page.textContent('#link-list [data-link="dev"]'))!, /carol, linked/);
    await page.click('#logout');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');

    // carol's dev login is the demo user now.
    await page.click('#providers [data-provider="dev"]');
    await page.waitForSelector('input[name="username"]');
    await page.fill('input[name="username"]', 'carol');
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as demo.');
    await page.click('#link-list [data-link="dev"] .link-remove');
    await page.waitForFunction(() => document.querySelector('#links-message')?.textContent === 'Unlinked dev.');
    // The list is read again after the message: gone once it is.
    await page.waitForFunction(
      () =>
        document.querySelector('#link-list [data-link="local"]') !== null &&
        document.querySelector('#link-list [data-link="dev"]') === null,
    );
    t.is(await page.locator('#link-list [data-link="dev"]').count(), 0);
    t.deepEqual((page as Page & { errors?: string[] }).errors, []);
    await page.click('#logout');
    await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Not logged in.');
    await page.close();
  },
);
