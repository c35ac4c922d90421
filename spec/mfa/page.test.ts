/**
 * The built-in second-step page over HTTP: its headers (a strict CSP whose nonce is the one inline
 * script's, never cached, never framed), what it shows for each state of the browser's login (a code
 * form, a recovery-code form, the set-up; no login, an expired or a forged one), and `next` embedded so
 * that no `from` can close the script or the string it sits in.
 */
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import type { MfaOptions } from '../../lib/mfa/options.js';
import { sendMfaPage, type MfaPageInput } from '../../lib/mfa/page.js';
import { ensureBrowserBundle } from '../helpers/browser.js';
import { Client, serve } from '../helpers/http.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { appCode, enrolledUser, enrollTotp, passwordLogin, startMfaApp, type MfaApp } from './fixtures.js';

/** The page's CSP as a map of directive → its sources. */
function csp(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

/** The `{"authPath","next"}` object the page's script starts from. */
function scriptConfig(html: string): { authPath: string; next: string } {
  const m = /var cfg = (.*);\n/.exec(html);
  if (!m) throw new Error('no config in the page');
  return JSON.parse(m[1]!);
}

const count = (html: string, re: RegExp) => html.match(re)?.length ?? 0;

/** A client of `app` whose password login of alice (TOTP on) waits for its second step. */
async function pendingLogin(app: MfaApp): Promise<{ c: Client; otpauthUrl: string }> {
  const { otpauthUrl } = await enrolledUser(app);
  const c = new Client(app.url);
  const login = await passwordLogin(c, 'alice');
  if (!c.jar.has('JWT-MFA')) throw new Error(`no partial login: ${login.status}`);
  return { c, otpauthUrl };
}

test('the page for a pending login: strict CSP with the script nonce, no-store, not framed, the code and recovery forms', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { c } = await pendingLogin(app);
  const res = await c.fetch('/auth/mfa/page');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('referrer-policy'), 'same-origin');
  const html = await res.text();
  const policy = csp(res);
  const nonce = /<script nonce="([^"]+)">/.exec(html)?.[1];
  t.truthy(nonce, 'the inline script carries a nonce');
  t.deepEqual(policy.get('default-src'), ["'none'"]);
  t.deepEqual(policy.get('script-src'), [`'nonce-${nonce}'`], 'only the nonce: no unsafe-inline, no host');
  t.deepEqual(policy.get('style-src'), [`'nonce-${nonce}'`]);
  t.deepEqual(policy.get('connect-src'), ["'self'"]);
  t.deepEqual(policy.get('img-src'), ['data:']);
  t.deepEqual(policy.get('frame-ancestors'), ["'none'"]);
  t.deepEqual(policy.get('base-uri'), ["'none'"]);
  t.deepEqual(policy.get('form-action'), ["'self'"]);
  t.false(policy.has('sandbox'), "the auth routes' sandboxed default is replaced: the page must run its script");
  t.is(count(html, /<script/g), 2, "two scripts: the client bundle and the page's own");
  t.true(html.includes(`<script nonce="${nonce}" src="/auth/mfa/client.js"></script>`), 'the bundle, same nonce');
  t.is(count(html, /<style nonce="/g), 1);
  t.true(html.includes(`<style nonce="${nonce}">`));
  // The code field: what phones and password managers fill from a text message or an authenticator.
  t.regex(html, /<input id="code" name="code" autocomplete="one-time-code" inputmode="numeric"[^>]*required/);
  t.regex(html, /<form id="recovery-form" method="post" action="\/auth\/mfa\/verify">/);
  t.regex(html, /<input id="recovery-code" name="recoveryCode"/);
  t.false(html.includes('id="passkey"'), 'no passkey button: alice has no passkey');
  t.false(html.includes('id="setup"'), 'nothing to set up');
  t.regex(html, /aria-live="assertive"/);
  t.deepEqual(scriptConfig(html), { authPath: '/auth', next: '/' });

  const again = await c.fetch('/auth/mfa/page');
  t.not(/<script nonce="([^"]+)">/.exec(await again.text())?.[1], nonce, 'a new nonce per page');
});

test('without the script the code form still finishes the login: its action and field, posted as a form', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { c, otpauthUrl } = await pendingLogin(app);
  const html = await (await c.fetch('/auth/mfa/page')).text();
  const action = /<form id="code-form" method="post" action="([^"]+)">/.exec(html)?.[1];
  t.is(action, '/auth/mfa/verify');
  const done = await c.fetch(action!, {
    method: 'POST',
    headers: { origin: app.url },
    form: { code: appCode(otpauthUrl, app.clock()) },
  });
  t.is(done.status, 200, await done.clone().text());
  t.is((await done.json()).name, 'alice');
  t.true(c.jar.has('JWT'));
});

test('a `from` with </script> and quotes (a dev login): the page goes where the redirect policy says, and no script is broken out of', async (t) => {
  const app = await startMfaApp({ logger: { info() {}, warn() {}, error() {} } }, [{ kind: 'dev', port: 0 }]);
  t.teardown(() => app.close());
  const devLogin = async (c: Client, query = '') =>
    c.fetch(await devAuthorize(await startLogin(c, 'dev', query), 'alice'));
  const enrolling = new Client(app.url);
  await devLogin(enrolling);
  await enrollTotp(app, enrolling);
  const from = `/after?q="'</script><script>alert(1)</script>#'"</script>`;
  const c = new Client(app.url);
  const login = await devLogin(c, `from=${encodeURIComponent(from)}`);
  t.is(login.status, 303);
  const location = new URL(login.headers.get('location')!);
  t.is(location.pathname, '/auth/mfa/page');
  t.is(location.searchParams.get('from'), from);
  const res = await c.fetch(location.pathname + location.search);
  const html = await res.text();
  t.true(html.includes('id="code-form"'));
  t.is(count(html, /<script/gi), 2);
  t.is(count(html, /<\/script/gi), 2, "only the real ends of the bundle's and the page's scripts");
  t.is(
    scriptConfig(html).next,
    new URL(from, app.url).href,
    "the permitted URL, as the server's redirect would have it",
  );
  t.deepEqual(
    csp(res).get('form-action'),
    ["'self'", new URL(app.url).origin],
    "next's origin, for the plain form's redirect",
  );
});

/** The page as sendMfaPage writes it for `input`, from a real Koa server. */
async function rendered(t: ExecutionContext, input: Partial<MfaPageInput>): Promise<{ res: Response; html: string }> {
  const koa = new Koa();
  koa.use((ctx) =>
    sendMfaPage(ctx, {
      authRoutePath: '/auth',
      factors: ['totp'],
      enroll: false,
      pending: true,
      expired: false,
      next: undefined,
      ...input,
    }),
  );
  const served = await serve(koa.callback());
  t.teardown(() => served.close());
  const res = await fetch(served.url);
  return { res, html: await res.text() };
}

test('sendMfaPage: a raw next with </script>, <!--, quotes, backslashes and line separators is embedded as JSON that parses back to it', async (t) => {
  const next = "https://app.example/x?\"'</script><script>alert(1)</script><!--\\u0022\u2028\u2029&amp;$'$&";
  const { res, html } = await rendered(t, { next });
  t.is(count(html, /<script/gi), 2);
  t.is(count(html, /<\/script/gi), 2);
  t.false(html.includes('<!--'));
  t.false(/[\u2028\u2029]/.test(html));
  t.is(scriptConfig(html).next, next, "the same string: `$'` and `$&` were not taken as replacement patterns");
  t.deepEqual(csp(res).get('form-action'), ["'self'", 'https://app.example']);
});

test('sendMfaPage: a next that is not an http(s) URL or a path on this site becomes "/"', async (t) => {
  for (const next of ['javascript:alert(1)', 'data:text/html,x', '//evil.example/', '/\\evil.example/', 'https://']) {
    const { res, html } = await rendered(t, { next });
    t.is(scriptConfig(html).next, '/', next);
    t.deepEqual(csp(res).get('form-action'), ["'self'"], next);
  }
  t.is(scriptConfig((await rendered(t, { next: '/account?tab=1' })).html).next, '/account?tab=1');
});

test('no pending login: the page says to log in again, with no form and no script', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/mfa/page');
  t.is(res.status, 200);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.truthy(csp(res).get('frame-ancestors'));
  const html = await res.text();
  t.regex(html, /There is no login to finish here\. Please log in again\./);
  t.false(html.includes('<form'));
  t.false(html.includes('<script'));
});

test('an expired login (over 5 minutes) and a forged one: "took too long or is no longer valid", log in again', async (t) => {
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const { c } = await pendingLogin(app);
  const before = await (await c.fetch('/auth/mfa/page')).text();
  t.true(before.includes('id="code-form"'), 'within the 5 minutes the form is there');
  app.clock.advance(5 * 60_000 + 1000);
  const expired = await (await c.fetch('/auth/mfa/page')).text();
  t.regex(expired, /This login took too long or is no longer valid\. Please log in again\./);
  t.false(expired.includes('<form'));
  t.false(expired.includes('<script'));

  const forged = new Client(app.url);
  const fresh = new Client(app.url);
  await passwordLogin(fresh, 'alice');
  const token = fresh.jar.get('JWT-MFA')!;
  forged.jar.set('JWT-MFA', token.slice(0, -4) + (token.endsWith('AAAA') ? 'BBBB' : 'AAAA'));
  const html = await (await forged.fetch('/auth/mfa/page')).text();
  t.regex(html, /This login took too long or is no longer valid\./);
});

test('a login that must set up a factor first (mfa.required): the set-up, no code form', async (t) => {
  // startMfaApp puts its memory store under these options.
  const app = await startMfaApp({ mfa: { required: true } as MfaOptions });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await passwordLogin(c, 'bob');
  t.deepEqual(await login.json(), { mfa_required: true, enroll_required: true, factors: [] });
  const html = await (await c.fetch('/auth/mfa/page')).text();
  t.regex(html, /<button id="setup" type="button">/);
  t.regex(html, /<img id="qr" width="220" height="220" alt="[^"]+">/);
  t.regex(html, /<input id="enroll-code" name="code" autocomplete="one-time-code" inputmode="numeric"/);
  t.regex(html, /<div id="codes-step" hidden>/);
  t.false(html.includes('id="code-form"'));
  t.false(html.includes('id="recovery-form"'));
});

test("the page makes its requests with the client bundle it loads: no copy of the client's fetch, errors or WebAuthn JSON helpers", async (t) => {
  const { html } = await rendered(t, { factors: ['totp', 'recovery', 'passkey'] });
  t.true(html.includes('src="/auth/mfa/client.js"'));
  const own = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  t.true(own.includes('authkoaClient.createAuthClient('), "the page's script was found, and it makes the client");
  for (const call of ['mfa.verify(', 'mfa.verifyWithPasskey(', 'mfa.setupTotp(', 'mfa.confirmTotp('])
    t.true(own.includes(call), call);
  // What browser/client/transport.ts and webauthn-json.ts do: the page must not do it again.
  for (const copy of [
    'fetch(',
    'atob(',
    'btoa(',
    'Uint8Array',
    'parseRequestOptionsFromJSON',
    'clientDataJSON',
    'toJSON',
  ])
    t.false(own.includes(copy), `the page's own script holds ${copy}`);
});

test('GET /auth/mfa/client.js: the built client bundle (window.authkoaClient) as JavaScript, revalidated by its ETag', async (t) => {
  await ensureBrowserBundle();
  const app = await startMfaApp();
  t.teardown(() => app.close());
  const res = await fetch(`${app.url}/auth/mfa/client.js`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('cache-control'), 'no-cache');
  const body = await res.text();
  t.is(body, await readFile(join(import.meta.dirname, '..', '..', 'dist', 'browser', 'client.global.js'), 'utf8'));
  t.regex(body, /authkoaClient/);
  const etag = res.headers.get('etag');
  t.truthy(etag);
  // node:http, not fetch: fetch adds `Cache-Control: no-cache` to a conditional request, which no cache answers 304.
  const status = await new Promise<number | undefined>((resolve, reject) =>
    get(`${app.url}/auth/mfa/client.js`, { headers: { 'if-none-match': etag! } }, (r) => {
      r.resume();
      resolve(r.statusCode);
    }).on('error', reject),
  );
  t.is(status, 304);
  t.is((await fetch(`${app.url}/auth/mfa/client.js`, { method: 'POST', headers: { origin: app.url } })).status, 405);
});
