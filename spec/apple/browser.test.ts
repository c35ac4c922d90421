import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import test from 'ava';
import Koa from 'koa';
import { chromium } from 'playwright-core';
import { authKoa, getUserInfo } from '../../lib/index.js';
import { contractRecorder } from '../helpers/answers.js';
import { selfSignedCert } from '../helpers/tls.js';
import { CLIENT_ID, KEY_ID, TEAM_ID, startAppleStandin, teamKey } from './standin.js';

test('real Chromium over https: Apple’s cross-site form_post carries the handshake cookie and the login completes', async (t) => {
  const team = teamKey();
  // The stand-in's page is on http://localhost, another site than https://127.0.0.1.
  const apple = await startAppleStandin(team.publicKey, { browserHost: 'localhost' });
  t.teardown(() => apple.close());
  apple.script.user = { name: { firstName: 'Jane', lastName: 'Appleseed' } };

  const app = new Koa();
  // Koa composes its middleware when callback() is called: take it once the routes are in place.
  let handle: ReturnType<Koa['callback']> | undefined;
  const server = https.createServer(await selfSignedCert(), (req, res) =>
    handle ? handle(req, res) : void res.writeHead(503).end(),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = authKoa({
    secret: 'apple-browser-secret-0123456789abcdef',
    url,
    providers: [
      {
        kind: 'apple',
        clientId: CLIENT_ID,
        teamId: TEAM_ID,
        keyId: KEY_ID,
        privateKey: team.pem,
        endpoint: apple.endpoint(),
      },
    ],
  });
  const contract = contractRecorder(auth);
  t.teardown(() => contract.closed(() => auth.close()));
  const callbacks: Array<{ method: string; site: string; handshake: boolean; laxProbe: boolean }> = [];
  app.use(async (ctx, next) => {
    const cookie = ctx.get('cookie');
    if (ctx.path === '/auth/apple/callback')
      callbacks.push({
        method: ctx.method,
        site: ctx.get('sec-fetch-site'),
        handshake: /(^|;\s*)JWT-handshake=/.test(cookie),
        laxProbe: /(^|;\s*)probe=/.test(cookie),
      });
    await next();
    // A control: a cookie like the handshake but SameSite=Lax, which the cross-site POST must leave out.
    if (ctx.path === '/auth/apple/login')
      ctx.append('Set-Cookie', 'probe=1; Path=/auth/apple; Secure; HttpOnly; SameSite=Lax');
  });
  app.use(contract.use);
  app.use(auth);
  const router = new Router();
  router.get('/welcome', (ctx) => {
    ctx.type = 'html';
    ctx.body = '<!doctype html><meta charset="utf-8"><title>Welcome</title><h1>Welcome</h1>';
  });
  router.get('/private', auth.middleware.auth, (ctx) => {
    ctx.body = { user: getUserInfo(ctx) };
  });
  app.use(router.routes());
  handle = app.callback();

  const browser = await chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--ignore-certificate-errors',
    ],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext();
  const page = await context.newPage();

  await page.goto(`${url}/auth/apple/login?from=/welcome`);
  t.true(
    page.url().startsWith(`${apple.browserURL}/auth/authorize?`),
    `at the stand-in, on localhost (at ${page.url()}: ${(await page.content()).slice(0, 300)})`,
  );
  const handshake = (await context.cookies()).find((c) => c.name === 'JWT-handshake');
  t.like(handshake, { sameSite: 'None', secure: true, httpOnly: true, path: '/auth/apple' });

  await Promise.all([page.waitForURL(`${url}/welcome`), page.click('#continue')]);
  t.deepEqual(
    callbacks,
    [{ method: 'POST', site: 'cross-site', handshake: true, laxProbe: false }],
    'one cross-site POST: the None handshake came along, a Lax cookie did not',
  );
  t.is(await page.textContent('h1'), 'Welcome');

  const cookies = await context.cookies();
  t.is(
    cookies.find((c) => c.name === 'JWT-handshake'),
    undefined,
    'the handshake is used up',
  );
  t.like(
    cookies.find((c) => c.name === 'JWT'),
    { sameSite: 'Lax', secure: true, httpOnly: true },
  );
  const me = await page.evaluate(async () => {
    const xsrf = /(?:^|;\s*)XSRF-TOKEN=([^;]+)/.exec(document.cookie)?.[1] ?? '';
    const res = await fetch('/private', { headers: { 'X-XSRF-TOKEN': xsrf } });
    return { status: res.status, body: await res.json() };
  });
  t.is(me.status, 200);
  t.is(me.body.user.name, 'Jane Appleseed');
  t.regex(me.body.user.id, /^apple_[0-9a-f]{40}$/);
});
