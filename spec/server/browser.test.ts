import test from 'ava';
import { getUserInfo } from '../../lib/index.js';
import { launchChromium } from '../helpers/browser.js';
import { startApp } from '../helpers/http.js';
import { checker, options } from './fixtures.js';

test('real Chromium signs in through the login page by its labels and lands on the app', async (t) => {
  const app = await startApp(options([{ kind: 'server', url: 'http://127.0.0.1:0', checker }]), (router, auth) => {
    router.get('/welcome', (ctx) => {
      ctx.type = 'html';
      ctx.body = '<!doctype html><meta charset="utf-8"><title>Welcome</title><h1>Welcome</h1>';
    });
    router.get('/me', auth.middleware.auth, (ctx) => {
      ctx.body = getUserInfo(ctx);
    });
  });
  t.teardown(() => app.close());
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const errors: string[] = [];
  // favicon 404s aside, a CSP refusal (e.g. form-action blocking the redirect chain) would show here.
  page.on(
    'console',
    (m) => m.type() === 'error' && /Content Security Policy|Refused/i.test(m.text()) && errors.push(m.text()),
  );

  await page.goto(`${app.url}/auth/server/login?from=/welcome`);
  t.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Sign in');
  await page.getByLabel('User name').fill('alice');
  await page.getByLabel('Password').fill('not-her-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  t.is(await page.getByRole('alert').textContent(), 'Wrong user name or password.');
  t.is(await page.getByLabel('User name').inputValue(), 'alice');

  await page.getByLabel('Password').fill('wonderland');
  await Promise.all([page.waitForURL(`${app.url}/welcome`), page.getByRole('button', { name: 'Sign in' }).click()]);
  t.is(await page.textContent('h1'), 'Welcome');
  const me = await page.evaluate(async () => {
    const xsrf = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(document.cookie)?.[1] ?? '';
    return (await fetch('/me', { headers: { 'X-XSRF-TOKEN': xsrf } })).json();
  });
  t.is(me.name, 'Alice Liddell');
  t.deepEqual(errors, [], 'no CSP refusals on the way (form-action allows the redirect chain)');
});
