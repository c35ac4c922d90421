/**
 * Issue #37: each login kind fires exactly one `login` with the documented fields when a login
 * succeeds, and exactly one `login_failed` when the kind refuses one, against the same real peers the
 * second-factor tests log in through (kinds.ts). The passkey kind logs in from headless Chromium with
 * a virtual authenticator (spec/passkey's app and helpers), since its assertion is a browser's.
 */
import test, { type ExecutionContext } from 'ava';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { decodeJwt } from '../helpers/http.js';
import { addVirtualAuthenticator, useChromium } from '../helpers/browser.js';
import { startPasskeyApp, type PasskeyApp } from '../passkey/fixtures.js';
import { Browser } from '../sessions/fixtures.js';
import { LOOPBACK, UA, record, refusalOf, sidOf, userIdOf } from './fixtures.js';
import { KINDS, kindApp } from './kinds.js';
import { checker, submitLogin } from '../server/fixtures.js';
import { startLogin } from '../oauth2/fixtures.js';

for (const [name, setup] of Object.entries(KINDS)) {
  test(`${name}: a login fires one login event (provider, kind, amr, the /auth/user id, the token's sid, ip, User-Agent); a refused one fires one login_failed (the answered code and status)`, async (t) => {
    const k = await setup(t);
    const events = record(k.app.auth);
    const c = new Browser(k.app.url, UA);
    const res = await k.login(c);
    t.true(c.jar.has('JWT'), `the ${name} login gave a session: ${res.status}`);
    await events.until('login');
    const expected = {
      type: 'login',
      time: k.app.clock(),
      provider: k.provider,
      kind: k.kind,
      amr: k.amr,
      userId: await userIdOf(c),
      sid: sidOf(c),
      ip: LOOPBACK,
      userAgent: UA,
    };
    t.deepEqual(events.all, [expected], 'one event: the login');
    t.regex(expected.sid, /\S{16,}/);

    events.clear();
    const stranger = new Browser(k.app.url, UA);
    const { res: refused, userName } = await k.refuse(stranger);
    const { status, code } = await refusalOf(refused);
    t.is(code, k.refusal, `the ${name} refusal answered`);
    await events.until('login_failed');
    const failed = {
      type: 'login_failed',
      time: k.app.clock(),
      provider: k.provider,
      kind: k.kind,
      reason: code,
      status,
      ...(userName === undefined ? {} : { userName }),
      ip: LOOPBACK,
      userAgent: UA,
    };
    t.deepEqual(events.all, [failed], 'one event: the refusal');
  });
}

const browser = useChromium(test);
const BUNDLE = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist', 'browser', 'passkey.js');

/** A page of `app` (which serves the passkey bundle) in a context sending UA, with a virtual authenticator. */
async function passkeyPage(t: ExecutionContext, app: PasskeyApp): Promise<Page> {
  const bundle = await readFile(BUNDLE, 'utf8');
  app.router.get('/page', (ctx) => {
    ctx.type = 'html';
    ctx.body = '<!doctype html><meta charset="utf-8"><title>passkeys</title><script src="/passkey.js"></script>';
  });
  app.router.get('/passkey.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = bundle;
  });
  const context = await browser().newContext({ userAgent: UA });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page);
  // A session of the dev provider adds the passkey, then ends; the page is back on /page.
  await page.goto(`${app.url}/auth/dev/login?from=${encodeURIComponent(`${app.url}/page`)}`);
  await page.fill('input[name=username]', 'dev_user');
  await Promise.all([page.waitForURL(`${app.url}/page`), page.click('button')]);
  await page.evaluate(() => (window as any).authkoaPasskey.registerPasskey());
  await page.evaluate(async () => {
    const xsrf =
      document.cookie
        .split('; ')
        .find((c) => c.startsWith('XSRF-TOKEN='))
        ?.slice(11) ?? '';
    await fetch('/auth/logout', { headers: { 'X-XSRF-TOKEN': xsrf } });
  });
  return page;
}

test('passkey: a login fires one login event (kind passkey, amr hwk, the /auth/user id, the token sid, ip, User-Agent); an assertion that does not verify fires one login_failed', async (t) => {
  const app = await startPasskeyApp(t);
  const page = await passkeyPage(t, app);
  const events = record(app.auth);
  const before = Date.now();
  await page.evaluate(() => (window as any).authkoaPasskey.loginWithPasskey());
  await events.until('login');
  const jwt = (await page.context().cookies(app.url)).find((c) => c.name === 'JWT')!.value;
  const me = await page.evaluate(async () => {
    const xsrf =
      document.cookie
        .split('; ')
        .find((c) => c.startsWith('XSRF-TOKEN='))
        ?.slice(11) ?? '';
    return (await (await fetch('/auth/user', { headers: { 'X-XSRF-TOKEN': xsrf } })).json()) as { id: string };
  });
  const [login] = events.all;
  t.true(login!.time >= before && login!.time <= Date.now(), 'stamped by the instance clock');
  t.deepEqual(events.all, [
    {
      type: 'login',
      time: login!.time,
      provider: 'passkey',
      kind: 'passkey',
      amr: ['hwk'],
      userId: me.id,
      sid: decodeJwt(jwt).sid,
      ip: LOOPBACK,
      userAgent: UA,
    },
  ]);
  t.is(me.id, 'dev_user', 'the account that added the passkey');

  // A real assertion of this authenticator, its signature changed by one bit, posted as the page would.
  events.clear();
  const assertion = await page.evaluate(async () => {
    const options = await (await fetch('/auth/passkey/login/options', { method: 'POST' })).json();
    const credential = (await navigator.credentials.get({
      publicKey: (PublicKeyCredential as any).parseRequestOptionsFromJSON(options),
    })) as any;
    return credential.toJSON();
  });
  const signature = Buffer.from(assertion.response.signature, 'base64url');
  signature[signature.length - 1]! ^= 1;
  assertion.response.signature = signature.toString('base64url');
  // The challenge-binding cookie is scoped to the passkey routes: asked for without a URL.
  const binding = (await page.context().cookies()).find((c) => c.name === 'passkey-challenge')!;
  const refused = await fetch(`${app.url}/auth/passkey/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': UA, cookie: `${binding.name}=${binding.value}` },
    body: JSON.stringify(assertion),
  });
  const { status, code } = await refusalOf(refused);
  t.deepEqual([status, code], [401, 'passkey_invalid']);
  await events.until('login_failed');
  t.like(events.all[0], {
    type: 'login_failed',
    provider: 'passkey',
    kind: 'passkey',
    reason: code,
    status,
    ip: LOOPBACK,
    userAgent: UA,
  });
  t.is(events.all.length, 1, 'one event: the refusal');
  t.false('userName' in events.all[0]!, 'a passkey login types no user name');
});

test('server: a wrong password on its own login page fires one login_failed (provider server, bad_credentials, the typed user name, the page answered 200)', async (t) => {
  const app = await kindApp(t, [{ kind: 'server', url: 'http://127.0.0.1:0', checker }]);
  const events = record(app.auth);
  const authorize = await startLogin(new Browser(app.url, UA), 'server');
  const { res } = await submitLogin(new Browser(authorize.origin, UA), authorize.href, 'alice', 'not-wonderland');
  t.regex(await res.text(), /Wrong user name or password/);
  await events.until('login_failed');
  t.like(events.all[0], {
    type: 'login_failed',
    provider: 'server',
    kind: 'server',
    reason: 'bad_credentials',
    status: 200,
    userName: 'alice',
    ip: LOOPBACK,
    userAgent: UA,
  });
  t.is(events.all.length, 1);
});
