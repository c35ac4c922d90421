/**
 * The demo without its optional packages, as `npx authctl demo` runs from an install: it starts, leaves the
 * features whose package is missing out, and says so in the banner, at GET /features and on the page, in
 * Chromium. The packages are hidden through startExample's `installed` (this repository has them all);
 * spec/package/demo.test.ts runs the same from a real install without them.
 */
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { startCheckedExample } from '../helpers/example.js';
import { useChromium } from '../helpers/browser.js';
import { tempDir } from '../helpers/temp.js';

const browser = useChromium(test);
const without =
  (...missing: string[]) =>
  (pkg: string) =>
    !missing.includes(pkg);

interface Feature {
  name: string;
  available: boolean;
  reason?: string;
}

async function features(url: string): Promise<Feature[]> {
  return ((await (await fetch(`${url}/features`)).json()) as { features: Feature[] }).features;
}

/** The demo on a free port of 127.0.0.1 with `missing` packages hidden; its banner lines are gathered. */
async function demoWithout(t: ExecutionContext, env: Record<string, string>, ...missing: string[]) {
  const lines: string[] = [];
  const varDir = join(tempDir(t, 'authkoa-features-'), 'var');
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir,
    env,
    installed: without(...missing),
    log: (l) => lines.push(l),
  });
  t.teardown(() => app.close());
  return { app, lines };
}

test('with every package installed, on 127.0.0.1, every optional feature is on and the page says nothing is off', async (t) => {
  const app = await startCheckedExample({
    port: 0,
    devPort: 0,
    host: '127.0.0.1',
    varDir: join(tempDir(t, 'authkoa-features-'), 'var'),
    env: {},
  });
  t.teardown(() => app.close());
  t.deepEqual(
    (await features(app.url)).map((f) => [f.name, f.available]),
    [
      ['passkeys', true],
      ['avatars', true],
    ],
  );
  const page = await browser().newPage();
  t.teardown(() => page.close());
  await page.goto(`${app.url}/`);
  await page.waitForSelector('#providers [data-provider="passkey"]');
  t.is(await page.locator('.unavailable').count(), 0);
});

test('without @simplewebauthn/server and jimp: no passkey provider, both said off on the page, a dev login still shows its avatar', async (t) => {
  const { app, lines } = await demoWithout(t, {}, '@simplewebauthn/server', 'jimp');
  t.deepEqual(
    app.auth.providers.list().map((p) => p.name),
    ['dev', 'local', 'email', 'password'],
  );
  t.true(
    lines.includes(
      '  passkeys:  off: the package "@simplewebauthn/server" is not installed: npm install @simplewebauthn/server, then start the demo again',
    ),
    lines.join('\n'),
  );
  t.true(
    lines.some((l) => l.startsWith('  avatars:   off: avatars are kept at their original size: the package "jimp"')),
    lines.join('\n'),
  );

  const page = await browser().newPage();
  t.teardown(() => page.close());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${app.url}/`);
  await page.waitForSelector('#login .unavailable[data-feature="avatars"]');
  t.regex(
    (await page.textContent('#login .unavailable[data-feature="passkeys"]'))!,
    /^Passkeys .*: off, the package "@simplewebauthn\/server" is not installed: npm install @simplewebauthn\/server/,
  );
  t.regex((await page.textContent('#login .unavailable[data-feature="avatars"]'))!, /npm install jimp/);
  t.is(await page.locator('#providers [data-provider="passkey"]').count(), 0);

  // Avatars are still proxied and stored, at the size the provider sent.
  await page.click('#providers [data-provider="dev"]');
  await page.fill('input[name="username"]', 'carol');
  const avatar = page.waitForResponse((r) => r.url().includes('/avatar/'));
  await page.click('button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent === 'Logged in as carol.');
  t.is((await avatar).status(), 200);
  t.deepEqual(errors, []);
});

test('a Telegram token without node-telegram-bot-api: the demo starts without Telegram and says why', async (t) => {
  const { app, lines } = await demoWithout(t, { TELEGRAM_BOT_TOKEN: '1:abc' }, 'node-telegram-bot-api');
  t.false(app.auth.providers.list().some((p) => p.name === 'telegram'));
  t.like(
    (await features(app.url)).find((f) => f.name === 'telegram'),
    { available: false },
  );
  t.true(
    lines.includes(
      '  telegram:  off: the package "node-telegram-bot-api" is not installed: npm install node-telegram-bot-api, then start the demo again',
    ),
    lines.join('\n'),
  );
});
