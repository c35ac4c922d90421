/**
 * `authkoa/client` in Node against a running app over real HTTP: every method, the cookies it keeps
 * itself (no `document` here), the XSRF header it sends by itself, and every refusal as an AuthClientError
 * with its code. The second factor runs on the app's hand-moved clock, codes from the `otpauth` library;
 * passkeys with a software authenticator (spec/helpers/webauthn.ts) as the client's `webauthn` device.
 */
import test, { type ExecutionContext } from 'ava';
import http from 'node:http';
import { AuthClientError, createAuthClient, type AuthClientOptions } from '../../browser/client.js';
import type { ProviderEntry } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { appCode, PASSWORDS, startMfaApp, wrongCode, type MfaApp } from '../mfa/fixtures.js';
import { parseSetCookie, serve } from '../helpers/http.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';

const quiet = { info() {}, warn() {}, error() {} };
const sent: Array<[string, string]> = [];
const PROVIDERS = [
  { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw },
  { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' },
  {
    kind: 'verified',
    name: 'sms',
    template: '{{.Token}}',
    sender: (address: string, text: string) => void sent.push([address, text]),
  },
  { kind: 'dev', port: 0 },
] as ProviderEntry[];

async function app(t: ExecutionContext): Promise<MfaApp> {
  const a = await startMfaApp({ logger: quiet }, PROVIDERS);
  t.teardown(() => a.close());
  return a;
}

/** A client of `a`; `log` collects each request's method, path and headers as fetch sent them. */
function client(
  a: MfaApp,
  more: Partial<AuthClientOptions> = {},
  log: Array<{ method: string; path: string; headers: Headers; setCookies: string[] }> = [],
) {
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    log.push({
      method: init?.method ?? 'GET',
      path: new URL(String(input)).pathname,
      headers: new Headers(init?.headers),
      setCookies: res.headers.getSetCookie(),
    });
    return res;
  };
  return createAuthClient({ baseURL: a.url, fetch: recording, ...more });
}

/** The rejection of `p`, which must be an AuthClientError. */
async function refusal(t: ExecutionContext, p: Promise<unknown>): Promise<AuthClientError> {
  const err = await t.throwsAsync(p);
  if (!(err instanceof AuthClientError)) throw new Error(`not an AuthClientError: ${String(err)}`);
  return err;
}

test('providers, status, login, user and logout; user() after logout() rejects with no_token', async (t) => {
  const a = await app(t);
  const auth = client(a);
  t.deepEqual(await auth.providers(), ['direct', 'passkey', 'sms', 'dev']);
  t.deepEqual(await auth.providers({ details: true }), [
    { name: 'direct', kind: 'direct' },
    { name: 'passkey', kind: 'passkey' },
    { name: 'sms', kind: 'verified' },
    { name: 'dev', kind: 'dev' },
  ]);
  t.deepEqual(await auth.status(), { status: 'not logged in' });
  const none = await refusal(t, auth.user());
  t.like(none, { code: 'no_token', status: 401 });

  const result = await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
  t.is(result.state, 'logged_in');
  if (result.state !== 'logged_in') return;
  t.is(result.user.id, `direct_${sha1('alice')}`);
  t.like(await auth.user(), { id: result.user.id, name: 'alice' });
  t.deepEqual(await auth.status(), { status: 'logged in', user: 'alice' });

  await auth.logout();
  t.deepEqual(await auth.status(), { status: 'not logged in' });
  t.like(await refusal(t, auth.user()), { code: 'no_token', status: 401 });
});

test('the XSRF header is sent by itself, equal to the XSRF-TOKEN cookie the login set; the same cookies without it are refused', async (t) => {
  const a = await app(t);
  const log: Parameters<typeof client>[2] = [];
  const auth = client(a, {}, log);
  await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
  const xsrf = log[0]!.setCookies.map(parseSetCookie).find((c) => c.name === 'XSRF-TOKEN')!.value;
  t.truthy(xsrf);
  await auth.user();
  const sentUser = log.at(-1)!;
  t.is(sentUser.path, '/auth/user');
  t.is(sentUser.headers.get('x-xsrf-token'), xsrf);
  t.regex(sentUser.headers.get('cookie') ?? '', /(^|; )JWT=/);

  // The app's own routes as this client: fetch() sends the session and the header too.
  const before = await client(a).fetch('/private', { method: 'POST' });
  t.is(before.status, 401);
  const mine = await auth.fetch('/private', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  t.is(mine.status, 201);
  t.like(await mine.json(), { user: { name: 'alice' } });
  await t.throwsAsync(auth.fetch('private'), { instanceOf: TypeError });

  // The cookies the client sent, without the header: the server refuses them, so the header is what let user() in.
  const bare = await fetch(`${a.url}/auth/user`, { headers: { cookie: sentUser.headers.get('cookie')! } });
  t.is(bare.status, 401);
  t.like(await bare.json(), { code: 'xsrf_mismatch' });
});

test('refusals carry the server code and status: bad_credentials, unknown provider, origin, invalid_code, not_found', async (t) => {
  const a = await app(t);
  const auth = client(a);
  t.like(await refusal(t, auth.login('direct', { user: 'alice', passwd: 'wrong' })), {
    code: 'bad_credentials',
    status: 403,
    name: 'AuthClientError',
  });
  t.like(await refusal(t, auth.login('nobody', {})), { code: 'unknown_provider', status: 400 });
  t.like(await refusal(t, auth.sessions.list()), { code: 'no_token', status: 401 });
  await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
  t.like(await refusal(t, auth.sessions.end('no-such-session')), { code: 'not_found', status: 404 });
  t.like(await refusal(t, auth.mfa.newRecoveryCodes()), { code: 'factor_not_enrolled' });
  await t.throwsAsync(auth.login('direct/../x', {}), { instanceOf: TypeError, message: /provider/ });
});

test('a second step due is a state, not an error: mfa_required, then mfa.verify() logs in; status, recovery codes, turning it off', async (t) => {
  const a = await app(t);
  const auth = client(a);
  await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
  const setup = await auth.mfa.setupTotp();
  t.regex(setup.otpauthUrl, /^otpauth:\/\/totp\//);
  t.regex(setup.qr, /^data:image\/svg\+xml/);
  const { recoveryCodes } = await auth.mfa.confirmTotp(appCode(setup.otpauthUrl, a.clock()));
  t.is(recoveryCodes.length, 10);
  a.clock.advance(30_000);
  t.deepEqual(await auth.mfa.status(), {
    state: 'logged_in',
    summary: { totp: true, recoveryCodesLeft: 10, passkeys: 0 },
  });
  await auth.logout();

  const first = await auth.login('direct', { user: 'alice', passwd: 'alice-pw' });
  t.deepEqual(first, { state: 'mfa_required', factors: ['totp', 'recovery'], enrollRequired: false });
  t.like(await refusal(t, auth.user()), { code: 'no_token' }, 'no session before the second step');
  t.deepEqual(await auth.mfa.status(), { state: 'mfa_required', factors: ['totp', 'recovery'], enrollRequired: false });
  t.like(await refusal(t, auth.mfa.verify({ code: wrongCode(setup.otpauthUrl, a.clock()) })), {
    code: 'invalid_code',
    status: 403,
  });
  const user = await auth.mfa.verify({ code: appCode(setup.otpauthUrl, a.clock()) });
  t.is(user.id, `direct_${sha1('alice')}`);
  t.is((await auth.user()).id, user.id);

  const fresh = await auth.mfa.newRecoveryCodes();
  t.is(fresh.length, 10);
  t.notDeepEqual(fresh, recoveryCodes);
  t.deepEqual(await auth.mfa.disableTotp(), { totp: false, recoveryCodesLeft: 0, passkeys: 0 });
  await auth.logout();
  t.like(await auth.login('direct', { user: 'alice', passwd: 'alice-pw' }), { state: 'logged_in' });
});

test('passkeys: register, list, log in with one, remove it (a software authenticator as the webauthn device)', async (t) => {
  const a = await app(t);
  const authenticator = new SoftAuthenticator(a.url, '127.0.0.1');
  const auth = client(a, { webauthn: authenticator });
  t.like(await refusal(t, auth.passkeys.register()), { code: 'no_token' });
  await auth.login('direct', { user: 'bob', passwd: 'bob-pw' });
  const { id } = await auth.passkeys.register();
  t.is(id, authenticator.id);
  const list = await auth.passkeys.list();
  t.deepEqual(
    list.map((p) => p.id),
    [id],
  );
  await auth.logout();

  // Adding the passkey ended bob's other sessions issued up to that millisecond, at once: the passkey's login
  // comes a second later on the app's clock, as a person's would.
  a.clock.advance(1000);
  const login = await auth.passkeys.login();
  t.is(login.state, 'logged_in');
  t.is((await auth.user()).id, `direct_${sha1('bob')}`);
  await auth.passkeys.remove(id);
  t.deepEqual(await auth.passkeys.list(), []);
  t.like(await refusal(t, auth.passkeys.remove(id)), { code: 'not_found', status: 404 });
  await auth.logout();
  t.like(await refusal(t, auth.passkeys.login()), { code: 'passkey_unknown', status: 401 });
  // Without a device, outside a browser: a client-side refusal before the server spends a challenge.
  t.like(await refusal(t, client(a).passkeys.login()), { code: 'unsupported', status: 0 });
});

test('sessions: each client its own; endOthers() ends the other, end() of its own logs it out', async (t) => {
  const a = await app(t);
  const phone = client(a);
  const laptop = client(a);
  await phone.login('direct', { user: 'alice', passwd: 'alice-pw' });
  await laptop.login('direct', { user: 'alice', passwd: 'alice-pw' });
  const seen = await laptop.sessions.list();
  t.is(seen.length, 2);
  t.is(seen.filter((s) => s.current).length, 1);
  const mine = seen.find((s) => s.current)!.sid;
  t.deepEqual(await laptop.sessions.endOthers(), { ended: 'others', current: mine });
  t.deepEqual(
    (await laptop.sessions.list()).map((s) => s.sid),
    [mine],
  );
  await laptop.sessions.end(mine);
  t.like(await refusal(t, laptop.user()), { code: 'no_token' });
});

test('a first step that is not a login yet is `pending`; its second step logs in (verified, a sender of our own)', async (t) => {
  const a = await app(t);
  const auth = client(a);
  sent.length = 0;
  const step1 = await auth.login('sms', { user: 'carol', address: '+15550100' });
  t.deepEqual(step1, { state: 'pending', answer: { user: 'carol', address: '+15550100' } });
  const [[address, token]] = sent as [[string, string]];
  t.is(address, '+15550100');
  const step2 = await auth.login('sms', { token: token.trim() });
  t.is(step2.state, 'logged_in');
  t.is((await auth.user()).name, 'carol');
});

test('loginRedirect() builds the login URL the server starts a redirect login at; outside a browser it does not navigate', async (t) => {
  const a = await app(t);
  const auth = client(a);
  const url = auth.loginRedirect('dev', { from: '/after?x=1', session: true });
  t.is(url, `${a.url}/auth/dev/login?from=%2Fafter%3Fx%3D1&session=1`);
  const res = await fetch(url, { redirect: 'manual' });
  t.is(res.status, 302);
  t.truthy(res.headers.get('location'));
  t.throws(() => auth.loginRedirect('', {}), { instanceOf: TypeError });
});

test('no answer, a slow answer, a huge one or one that is not JSON: network_error, timeout, response_too_large, invalid_response, http_error', async (t) => {
  const hang: http.ServerResponse[] = [];
  const peer = await serve((req, res) => {
    if (req.url!.endsWith('/user')) return void hang.push(res); // never answered
    if (req.url!.endsWith('/list'))
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array(100_000).fill('provider')));
    if (req.url!.endsWith('/status')) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
  });
  t.teardown(() => peer.close());
  // Only the request that is never answered gets a short timeout: a loaded machine may take longer for the rest.
  t.like(await refusal(t, createAuthClient({ baseURL: peer.url, timeout: 300 }).user()), {
    code: 'timeout',
    status: 0,
  });
  const auth = createAuthClient({ baseURL: peer.url, maxResponseBytes: 64 * 1024 });
  t.like(await refusal(t, auth.providers()), { code: 'response_too_large', status: 200 });
  t.like(await refusal(t, auth.status()), { code: 'invalid_response', status: 200 });
  t.like(await refusal(t, auth.logout()), { code: 'http_error', status: 502 });
  await peer.close();
  t.like(await refusal(t, auth.status()), { code: 'network_error', status: 0 });
  // The caller's own abort stays an AbortError.
  const again = await serve((_req, res) => void hang.push(res));
  t.teardown(() => again.close());
  const controller = new AbortController();
  const pending = createAuthClient({ baseURL: again.url }).passkeys.list({ signal: controller.signal });
  controller.abort();
  // ava's throwsAsync takes only native errors; Node's DOMException is not one.
  const aborted = await pending.then(
    () => undefined,
    (err: unknown) => err,
  );
  t.is((aborted as DOMException | undefined)?.name, 'AbortError');
});

test('options: a misspelled option, a missing baseURL outside a browser, a wrong type: TypeErrors naming them', (t) => {
  t.throws(() => createAuthClient({ baseUrl: 'http://x' } as AuthClientOptions), {
    instanceOf: TypeError,
    message: /unknown option "baseUrl" \(did you mean "baseURL"\?\)/,
  });
  t.throws(() => createAuthClient({}), { instanceOf: TypeError, message: /baseURL .*required outside a browser/ });
  t.throws(() => createAuthClient({ baseURL: 'app.example' }), {
    instanceOf: TypeError,
    message: /baseURL must be the app's http\(s\) origin/,
  });
  t.throws(() => createAuthClient({ baseURL: 'http://x', timeout: -1 }), {
    instanceOf: TypeError,
    message: /timeout must be a positive number/,
  });
  t.throws(() => createAuthClient({ baseURL: 'http://x', authPath: 'auth' }), {
    instanceOf: TypeError,
    message: /authPath/,
  });
  t.throws(() => createAuthClient({ baseURL: 'http://x', cookies: 'jar' as 'client' }), {
    instanceOf: TypeError,
    message: /cookies/,
  });
});

test('authPath: an app whose routes live elsewhere', async (t) => {
  const a = await startMfaApp({ logger: quiet, authRoutePath: '/account' }, PROVIDERS);
  t.teardown(() => a.close());
  const auth = createAuthClient({ baseURL: a.url, authPath: '/account/' });
  t.like(await auth.login('direct', { user: 'bob', passwd: 'bob-pw' }), { state: 'logged_in' });
  t.is((await auth.user()).name, 'bob');
});

test('the built bundle (what `import "authkoa/client"` loads) runs in Node: log in, user, log out', async (t) => {
  const a = await app(t);
  const built = (await import('authkoa/client' as string)) as typeof import('../../browser/client.js');
  const auth = built.createAuthClient({ baseURL: a.url });
  t.like(await auth.login('direct', { user: 'alice', passwd: 'alice-pw' }), { state: 'logged_in' });
  t.is((await auth.user()).name, 'alice');
  await auth.logout();
  const err = await t.throwsAsync(auth.user());
  t.true(err instanceof built.AuthClientError);
  t.like(err, { code: 'no_token' });
});

test('a passkey as the second step: mfa.verifyWithPasskey() with the device; sessions.end() of another session', async (t) => {
  const a = await app(t);
  const authenticator = new SoftAuthenticator(a.url, '127.0.0.1');
  const auth = client(a, { webauthn: authenticator });
  await auth.login('direct', { user: 'bob', passwd: 'bob-pw' });
  await auth.passkeys.register();
  const setup = await auth.mfa.setupTotp();
  await auth.mfa.confirmTotp(appCode(setup.otpauthUrl, a.clock()));
  a.clock.advance(30_000);
  await auth.logout();

  const first = await auth.login('direct', { user: 'bob', passwd: 'bob-pw' });
  t.deepEqual(first, { state: 'mfa_required', factors: ['totp', 'recovery', 'passkey'], enrollRequired: false });
  const user = await auth.mfa.verifyWithPasskey();
  t.is(user.id, `direct_${sha1('bob')}`);

  const other = client(a);
  t.like(await other.login('direct', { user: 'bob', passwd: 'bob-pw' }), { state: 'mfa_required' });
  t.is((await other.mfa.verify({ code: appCode(setup.otpauthUrl, a.clock()) })).id, user.id);
  const theirs = (await auth.sessions.list()).find((s) => !s.current)!;
  await auth.sessions.end(theirs.sid);
  t.deepEqual(
    (await auth.sessions.list()).map((s) => s.current),
    [true],
  );
});
