/**
 * The demo's pages on a phone and after the fact: every page has a viewport line, the outbox's long link
 * wraps, and a spent login link opened in a browser shows a page that says it was used, not the confirm
 * page and then raw JSON.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { type RunningExample } from '../../example/app.js';
import { startCheckedExample } from '../helpers/example.js';
import { tempDir } from '../helpers/temp.js';

const VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

async function demo(t: Parameters<typeof tempDir>[0]): Promise<RunningExample> {
  const dir = tempDir(t, 'authkoa-pages-');
  const app = await startCheckedExample({ port: 0, devPort: 0, host: '127.0.0.1', varDir: join(dir, 'var'), env: {} });
  t.teardown(() => app.close());
  return app;
}

/** Asks for an email login link for bob and returns it, as the outbox shows it. */
async function mailedLink(app: RunningExample): Promise<string> {
  const res = await fetch(`${app.url}/auth/email/login?user=bob&address=bob%40example.com&from=%2F`);
  if (res.status !== 200) throw new Error(`step 1: ${res.status}`);
  return /http:\/\/\S+token=\S+/.exec(app.outbox.list()[0]!.text)![0];
}

test('the outbox has a viewport line and its link wraps anywhere instead of running off a phone screen', async (t) => {
  const app = await demo(t);
  const link = await mailedLink(app);
  const html = await (await fetch(`${app.url}/outbox`)).text();
  t.true(html.includes(VIEWPORT));
  t.true(html.includes(`<a href="${link.replace(/&/g, '&#38;')}">`), html);
  const css = await (await fetch(`${app.url}/style.css`)).text();
  t.regex(css, /\.outbox pre \{[^}]*overflow-wrap: anywhere;/);
  t.regex(css, /\.outbox a \{[^}]*overflow-wrap: anywhere;/);
});

test("the dev OAuth2 server's login page and the confirm page have a viewport line", async (t) => {
  const app = await demo(t);
  const toDev = await fetch(`${app.url}/auth/dev/login?from=%2F`, { redirect: 'manual' });
  const devPage = await fetch(toDev.headers.get('location')!, { headers: HTML });
  t.is(devPage.status, 200);
  t.true((await devPage.text()).includes(VIEWPORT));
  const confirm = await fetch(await mailedLink(app), { headers: HTML });
  t.is(confirm.status, 200);
  t.true((await confirm.text()).includes(VIEWPORT));
  // The page the demo itself serves had one already; it stays.
  t.true(readFileSync(join(import.meta.dirname, '../../example/public/index.html'), 'utf8').includes(VIEWPORT));
});

test('a spent link opened in a browser shows "Link already used"; scripts still get the JSON error', async (t) => {
  const app = await demo(t);
  const link = await mailedLink(app);
  const token = new URL(link).searchParams.get('token')!;
  const login = await fetch(`${app.url}/auth/email/login`, {
    method: 'POST',
    headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
    body: new URLSearchParams({ token, session: '0' }),
    redirect: 'manual',
  });
  t.is(login.status, 303);
  // Followed again from the mail: before, the confirm page came back and its button ended on raw JSON.
  const again = await fetch(link, { headers: HTML });
  t.is(again.status, 403);
  t.is(again.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await again.text();
  t.regex(html, /<h1>Link already used<\/h1>/);
  t.true(html.includes(VIEWPORT));
  t.false(html.includes('<form'), 'no button that can only fail');
  const pressed = await fetch(`${app.url}/auth/email/login`, {
    method: 'POST',
    headers: { ...HTML, 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
    body: new URLSearchParams({ token, session: '0' }),
  });
  t.is(pressed.status, 403);
  t.regex(
    await pressed.text(),
    /<h1>Link already used<\/h1>/,
    'the button of a confirm page opened before the link was spent',
  );
  const script = await fetch(link);
  t.is(script.status, 403);
  t.deepEqual(await script.json(), { error: 'confirmation token already consumed', code: 'confirmation_used' });
});
