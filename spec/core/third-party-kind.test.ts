/**
 * A kind written outside the package (third-party-kind.ts, public entry only) can do what the built-in
 * `direct` kind does: log in from JSON and form bodies, throttle failures with the service's lock-outs,
 * issue the cookie session the `auth` middleware accepts, and log out. The facts asserted are those
 * direct.test.ts, routes.test.ts and security/throttle.test.ts assert for `direct`.
 */
import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerProvider, type AuthKoaOptions } from '../../lib/index.js';
import { Client, decodeJwt, manualClock, startApp } from '../helpers/http.js';
import { privateImports } from '../helpers/imports.js';
import { passwordKind } from './third-party-kind.js';

const SECRET = 'third-party-kind-secret-0123456789abcdef';
const here = import.meta.dirname;

registerProvider(passwordKind);

const expectedUser = {
  name: 'dev_direct',
  id: 'pw_' + createHash('sha1').update('dev_direct').digest('hex'),
  picture: '',
};

/** An app with one `passphrase` provider named `pw` (dev_direct / password, like the core fixtures), the checker's calls recorded. */
async function rig(t: ExecutionContext, extra: Partial<AuthKoaOptions> = {}) {
  const clock = manualClock();
  const calls: string[] = [];
  const checker = (user: string, passwd: string) => (calls.push(user), passwd === 'password' && user !== 'nobody');
  const app = await startApp({
    secret: SECRET,
    clock,
    providers: [{ kind: 'passphrase', name: 'pw', checker }],
    ...extra,
  });
  t.teardown(() => app.close());
  const client = new Client(app.url);
  const login = (user: string, passwd: string, c = client) =>
    c.fetch('/auth/pw/login', { method: 'POST', form: { user, passwd } });
  return { app, clock, calls, client, login };
}

test('login by form POST, JSON POST and JSON with charset all answer the User and set both cookies; /auth/list names the kind', async (t) => {
  const { app } = await rig(t);
  const variants: Array<RequestInit & { json?: unknown; form?: Record<string, string> }> = [
    { method: 'POST', form: { user: 'dev_direct', passwd: 'password' } },
    { method: 'POST', json: { user: 'dev_direct', passwd: 'password' } },
    {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ user: 'dev_direct', passwd: 'password' }),
    },
  ];
  for (const init of variants) {
    const c = new Client(app.url);
    const res = await c.fetch('/auth/pw/login', init);
    t.is(res.status, 200);
    t.is(await res.text(), JSON.stringify(expectedUser) + '\n');
    t.true(c.jar.has('JWT'));
    t.true(c.jar.has('XSRF-TOKEN'));
  }
  t.deepEqual(await (await new Client(app.url).fetch('/auth/list?details=1')).json(), [
    { name: 'pw', kind: 'passphrase' },
  ]);
});

test('wrong credentials → 403 JSON and no cookies; a GET login → 405 without a session', async (t) => {
  const { client, login } = await rig(t);
  const res = await client.fetch('/auth/pw/login', { method: 'POST', json: { user: 'dev_direct', passwd: 'bad' } });
  t.is(res.status, 403);
  t.deepEqual(await res.json(), { error: 'incorrect user or password', code: 'bad_credentials' });
  t.deepEqual(res.headers.getSetCookie(), []);
  t.is((await login('nobody', 'password')).status, 403);
  const get = await client.fetch('/auth/pw/login?user=dev_direct&passwd=password');
  t.is(get.status, 405);
  t.deepEqual(get.headers.getSetCookie(), []);
});

test('5 wrong passwords, then 429 with Retry-After and the checker not called; after the lock-out the right password logs in', async (t) => {
  const r = await rig(t);
  const statuses: number[] = [];
  let locked: Response | undefined;
  for (let i = 0; i < 8; i++) {
    const res = await r.login('alice', `wrong-${i}`);
    statuses.push(res.status);
    if (res.status === 429) locked ??= res;
  }
  t.deepEqual(statuses, [403, 403, 403, 403, 403, 429, 429, 429]);
  t.is(r.calls.length, 5, 'the checker ran only for the five attempts before the lock-out');
  t.is(locked!.headers.get('retry-after'), '60');
  t.deepEqual(await locked!.json(), { error: 'too many failed login attempts, try again later', code: 'rate_limited' });
  t.is((await r.login('alice', 'password')).status, 429, 'the right password too, while locked out');
  r.clock.advance(60_000);
  t.is((await r.login('alice', 'password')).status, 200, 'after the lock-out');
  t.true(r.client.jar.has('JWT'));
});

test('loginThrottle tunes the kind’s lock-out, false turns it off', async (t) => {
  const tuned = await rig(t, { loginThrottle: { perUser: 2, lockout: '10s' } });
  t.is((await tuned.login('dave', 'x')).status, 403);
  t.is((await tuned.login('dave', 'x')).status, 403);
  const res = await tuned.login('dave', 'x');
  t.is(res.status, 429);
  t.is(res.headers.get('retry-after'), '10');

  const off = await rig(t, { loginThrottle: false });
  for (let i = 0; i < 10; i++) t.is((await off.login('erin', 'x')).status, 403);
  t.is(off.calls.length, 10);
});

test('the cookie session works with the auth middleware, with the XSRF header only', async (t) => {
  const { client, login } = await rig(t);
  t.is((await login('dev_direct', 'password')).status, 200);
  t.is((await client.fetch('/private')).status, 401, 'the cookie alone is not enough: XSRF header required');
  const res = await client.fetch('/private', { headers: client.xsrf() });
  t.is(res.status, 201);
  t.deepEqual(((await res.json()) as { user: unknown }).user, { ...expectedUser, aud: '' });
});

test('answers as direct does, request for request: logins, refusals, the lock-out, session-only cookies and logout', async (t) => {
  const checker = (user: string, passwd: string) => passwd === 'password' && user !== 'nobody';
  // A clock that stands still: the lock-out's Retry-After is counted from it, and a loaded machine took more
  // than a second between the two runs.
  const app = await startApp({
    secret: SECRET,
    clock: manualClock(),
    providers: [
      { kind: 'direct', name: 'direct', checker },
      { kind: 'passphrase', name: 'pw', checker },
    ],
  });
  t.teardown(() => app.close());
  /** One exchange on a client of its own, as seen by the caller: the provider's name made neutral. */
  const answer = async (
    c: Client,
    name: string,
    path: string,
    init: RequestInit & { json?: unknown; form?: Record<string, string> } = {},
  ) => {
    const res = await c.fetch(path.replace('NAME', name), init);
    const cookies = c.lastCookies.map((k) => `${k.name} ${k.value === '' ? '' : 'set'} ${JSON.stringify(k.attrs)}`);
    return {
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.text()).replaceAll(`${name}_`, 'NAME_'),
      cookies,
    };
  };
  const script: Array<[string, RequestInit & { json?: unknown; form?: Record<string, string> }]> = [
    ['/auth/NAME/login', { method: 'POST', json: { user: 'dev_direct', passwd: 'password' } }],
    ['/auth/NAME/login?session=1', { method: 'POST', form: { user: 'dev_direct', passwd: 'password' } }],
    ['/private', {}],
    ['/auth/NAME/logout', {}],
    ['/auth/NAME/login', { method: 'POST', json: { user: 'nobody', passwd: 'password' } }],
    ['/auth/NAME/login', { method: 'POST', json: {} }],
    ...Array.from(
      { length: 6 },
      () =>
        ['/auth/NAME/login', { method: 'POST', form: { user: 'mallory', passwd: 'guess' } }] as [
          string,
          { method: string; form: Record<string, string> },
        ],
    ),
  ];
  const run = async (name: string) => {
    const c = new Client(app.url);
    const out = [];
    for (const [path, init] of script)
      out.push(await answer(c, name, path, path === '/private' ? { headers: c.xsrf() } : init));
    return out;
  };
  const direct = await run('direct');
  t.is(direct.at(-1)!.status, 429, 'the script reaches the lock-out');
  t.deepEqual(await run('pw'), direct);
});

test('/auth/logout and /auth/pw/logout clear both cookies', async (t) => {
  const { app } = await rig(t);
  for (const path of ['/auth/logout', '/auth/pw/logout']) {
    const c = new Client(app.url);
    await c.fetch('/auth/pw/login', { method: 'POST', form: { user: 'u', passwd: 'password' } });
    t.true(c.jar.has('JWT'));
    const res = await c.fetch(path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(
      c.cookie('JWT')!.raw,
      'JWT=; Path=/; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; HttpOnly',
    );
    t.is(c.cookie('XSRF-TOKEN')!.attrs['max-age'], '0');
    t.false(c.jar.has('JWT'));
    t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 401);
  }
});

test('session=1 gives session-only cookies without Max-Age; session=0 and sess=0 persistent; the flag may come in the body', async (t) => {
  const { app } = await rig(t);
  const login = (c: Client, query: string, body: Record<string, string> = {}) =>
    c.fetch(`/auth/pw/login?${query}`, { method: 'POST', json: { user: 'u', passwd: 'password', ...body } });
  const c = new Client(app.url);
  await login(c, 'session=1');
  t.is(c.cookie('JWT')!.attrs['max-age'], undefined);
  t.is(c.cookie('XSRF-TOKEN')!.attrs['max-age'], undefined);
  t.true(decodeJwt(c.jar.get('JWT')!).sess_only);
  for (const q of ['session=0', 'sess=0', '']) {
    const d = new Client(app.url);
    await login(d, q);
    t.is(d.cookie('JWT')!.attrs['max-age'], String(31 * 86400), q);
  }
  const legacy = new Client(app.url);
  await login(legacy, 'sess=1');
  t.is(legacy.cookie('JWT')!.attrs['max-age'], undefined);
  const inBody = new Client(app.url);
  await login(inBody, '', { session: '1' });
  t.is(inBody.cookie('JWT')!.attrs['max-age'], undefined);
});

test('its options list makes a misspelled option fail start-up, naming the closest one; a missing checker names the option', async (t) => {
  // Entries the types refuse too (ProviderKinds has the kind's options): start-up must refuse them for JavaScript callers.
  const start = (entry: Record<string, unknown>) =>
    startApp({ secret: SECRET, providers: [{ kind: 'passphrase', name: 'pw', ...entry } as never] });
  await t.throwsAsync(start({ cheker: () => true }), {
    message: 'authKoa: providers[0] (passphrase): unknown option "cheker" (did you mean "checker"?)',
  });
  await t.throwsAsync(start({}), {
    instanceOf: TypeError,
    message: 'authKoa: providers[0] (passphrase): checker must be a function (user, passwd) => boolean',
  });
});

test('the kind imports nothing from lib/ but lib/index.js', (t) => {
  const fixture = readFileSync(join(here, 'third-party-kind.ts'), 'utf8');
  t.regex(fixture, /from '\.\.\/\.\.\/lib\/index\.js'/, 'the kind does import the public entry');
  t.deepEqual(privateImports(fixture, here), []);
});

test('the import check reports every way into lib/ internals, and not the public entry', (t) => {
  const source = [
    "import type { Context } from 'koa';",
    "import { AuthError } from '../../lib/index.js';",
    "import { sessionFlag } from '../../lib/session/login.js';",
    'import {\n  rateLimited,\n  writeJSON,\n} from "../../lib/http/respond.js";',
    "import type { CredentialThrottle } from '../../lib/state/throttle.js';",
    "export { optionNames } from '../../lib/util/options.js';",
    "import '../../lib/providers/direct.js';",
    "const { crossSite } = await import('../../lib/http/origin.js');",
    "import { devProvider } from 'authkoa/dev';",
    "import { authKoa } from 'authkoa';",
    "declare module '../../lib/index.js' {}",
    "declare module '../../lib/providers/core/provider.js' {}",
  ].join('\n');
  t.deepEqual(privateImports(source, here), [
    '../../lib/session/login.js',
    '../../lib/http/respond.js',
    '../../lib/state/throttle.js',
    '../../lib/util/options.js',
    'authkoa/dev',
    '../../lib/providers/direct.js',
    '../../lib/http/origin.js',
    '../../lib/providers/core/provider.js',
  ]);
});
