/**
 * `authkoa/client`'s `accounts` calls in real headless Chromium, loaded as the built ES module
 * (`dist/browser/client.js`), against a running app with accounts and a password provider `local`: the browser
 * keeps the cookies and the client reads the XSRF token from `document.cookie`, so the calls that need a fresh
 * login (a new password, deletion) go through as a page's would. Every answer is checked against the app's
 * OpenAPI document when it closes (startApp).
 */
import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { useChromium } from '../helpers/browser.js';
import { startApp } from '../helpers/http.js';

const DIST = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'browser');
const browser = useChromium(test);
const PASSWORD = 'correct horse battery';

/** The app, the messages its password provider sent (newest last), and a page that has loaded the client. */
async function start(t: ExecutionContext) {
  const sent: Array<{ to: string; text: string }> = [];
  const esm = await readFile(join(DIST, 'client.js'), 'utf8');
  const app = await startApp(
    {
      secret: 'client-accounts-secret-0123456789abcdef',
      accounts: { store: 'memory://' },
      providers: [
        {
          kind: 'password',
          name: 'local',
          scrypt: { ln: 10, r: 8, p: 1 }, // cheap: this test is not about its cost
          sender: (to: string, text: string) => void sent.push({ to, text }),
        },
      ],
    },
    (router) => {
      router.get('/module', (ctx) => {
        ctx.type = 'html';
        ctx.body = `<!doctype html><meta charset="utf-8"><title>client</title><script type="module">
import * as client from '/client.js'; window.authkoaClient = client; window.loaded = true;</script>`;
      });
      router.get('/client.js', (ctx) => {
        ctx.type = 'text/javascript';
        ctx.body = esm;
      });
    },
  );
  t.teardown(() => app.close());
  const context = await browser().newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${app.url}/module`);
  await page.waitForFunction(() => (window as any).loaded === true);
  /** The token of the newest message's link. */
  const token = () => /token=([^\s&]+)/.exec(sent.at(-1)?.text ?? '')![1]!;
  return { app, sent, page, token };
}

/** Runs `body` in the page with `auth` (a client made with no options); a rejection comes back as `{ error }`. */
function inPage<T>(page: Page, body: string, arg: unknown = null): Promise<T> {
  return page.evaluate(
    async ({ body, arg }) => {
      const { createAuthClient, AuthClientError } = (window as any).authkoaClient;
      const auth = createAuthClient();
      const run = new Function('auth', 'arg', `return (async () => { ${body} })();`);
      try {
        return await run(auth, arg);
      } catch (e: any) {
        return { error: { code: e?.code, status: e?.status, isClientError: e instanceof AuthClientError } };
      }
    },
    { body, arg },
  ) as Promise<T>;
}

test('in a page: sign-up, the link redeemed by confirm() logs the browser in; changePassword() and delete() with the XSRF header the client sends', async (t) => {
  const { page, sent, token } = await start(t);
  t.deepEqual(
    await inPage(
      page,
      `return auth.accounts.signup({ email: 'ann@example.com', password: arg, name: 'Ann' });`,
      PASSWORD,
    ),
    { status: 'check_email' },
  );
  t.is(sent.at(-1)?.to, 'ann@example.com');
  const confirmed = await inPage<any>(page, `return auth.accounts.confirm(arg);`, decodeURIComponent(token()));
  t.like(confirmed, { state: 'logged_in', user: { name: 'Ann', email: 'ann@example.com' } });
  t.truthy(
    (await page.context().cookies()).find((c) => c.name === 'JWT'),
    'the browser holds the session',
  );

  const changed = await inPage<any>(
    page,
    `const changed = await auth.accounts.changePassword(arg.old, arg.next);
     const me = await auth.user();
     return { changed, me };`,
    { old: PASSWORD, next: 'a new horse, a new battery' },
  );
  t.like(changed, { changed: { status: 'password_changed' }, me: { email: 'ann@example.com' } });

  const refused = await inPage<any>(page, `return auth.accounts.signup({ email: 'nope', password: arg });`, PASSWORD);
  t.deepEqual(refused.error, { code: 'invalid_email', status: 400, isClientError: true });

  const deleted = await inPage<any>(
    page,
    `const deleted = await auth.accounts.delete();
     let after; try { await auth.user(); } catch (e) { after = e.code; }
     let login;
     try { await auth.login('local', { user: 'ann@example.com', passwd: arg }); } catch (e) { login = e.code; }
     return { deleted, after, login };`,
    'a new horse, a new battery',
  );
  t.deepEqual(deleted, { deleted: { status: 'account_deleted' }, after: 'no_token', login: 'bad_credentials' });
});

test('in a page: reset() and resetConfirm() set a new password that logs in; the old one no longer does', async (t) => {
  const { app, page, sent, token } = await start(t);
  await app.auth.accounts!.create({ email: 'bo@example.com', password: PASSWORD, confirmed: true });
  t.deepEqual(await inPage(page, `return auth.accounts.reset('bo@example.com');`), { status: 'check_email' });
  // The answer goes before the message is handed over: wait for it.
  for (const deadline = Date.now() + 10_000; sent.length === 0 && Date.now() < deadline;)
    await new Promise((done) => setTimeout(done, 20));
  const r = await inPage<any>(
    page,
    `const reset = await auth.accounts.resetConfirm(arg, 'bo-s new password');
     let old;
     try { await auth.login('local', { user: 'bo@example.com', passwd: '${PASSWORD}' }); } catch (e) { old = e.code; }
     const login = await auth.login('local', { user: 'bo@example.com', passwd: 'bo-s new password' });
     return { reset, old, login: login.state };`,
    decodeURIComponent(token()),
  );
  t.deepEqual(r, { reset: { status: 'password_reset' }, old: 'bad_credentials', login: 'logged_in' });
});
