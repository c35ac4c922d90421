import test from 'ava';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { resolveAuthKoaOptions as resolveOptions } from '../../lib/core/options.js';
import Koa from 'koa';
import { serve } from '../helpers/http.js';

const direct = { kind: 'direct' as const, name: 'local', checker: () => true };
const base: AuthKoaOptions = {
  secret: 'a secret that is long enough: 32+ bytes',
  url: 'http://127.0.0.1:8080',
  logger: () => {},
  providers: [direct],
};

test('defaults follow the original: token 15 min, cookie 31 days, /auth, /avatar, issuer authkoa, SameSite Lax', (t) => {
  const o = resolveOptions(base);
  t.is(o.tokenDurationMs, 15 * 60_000);
  t.is(o.cookieDurationMs, 31 * 86_400_000);
  t.is(o.issuer, 'authkoa');
  t.is(o.authRoutePath, '/auth');
  t.is(o.avatarRoutePath, '/avatar');
  t.is(o.avatarResizeLimit, 0);
  t.is(o.jwtCookieName, 'JWT');
  t.is(o.xsrfCookieName, 'XSRF-TOKEN');
  t.is(o.xsrfHeaderName, 'x-xsrf-token');
  t.is(o.jwtHeaderName, 'x-jwt');
  t.is(o.jwtQueryName, 'token');
  t.is(o.sameSite, 'Lax');
  t.false(o.secureCookies);
  t.is(o.maxSessionAgeMs, undefined);
  t.is(o.url, 'http://127.0.0.1:8080');
});

test('durations take milliseconds or 30s / 5m / 24h / 7d', (t) => {
  const o = resolveOptions({ ...base, tokenDuration: '30s', cookieDuration: '7d', maxSessionAge: '24h' });
  t.is(o.tokenDurationMs, 30_000);
  t.is(o.cookieDurationMs, 7 * 86_400_000);
  t.is(o.maxSessionAgeMs, 86_400_000);
  t.is(resolveOptions({ ...base, tokenDuration: 1500 }).tokenDurationMs, 1500);
  t.is(resolveOptions({ ...base, tokenDuration: '5m' }).tokenDurationMs, 300_000);
});

test('an https url turns Secure cookies on', (t) => {
  t.true(resolveOptions({ ...base, url: 'https://example.com/' }).secureCookies);
  t.is(resolveOptions({ ...base, url: 'https://example.com/' }).url, 'https://example.com');
});

const bad: Array<[string, Partial<AuthKoaOptions> | Record<string, unknown>, RegExp]> = [
  ['no secret', { secret: undefined }, /authKoa: secret is required/],
  ['an empty secret', { secret: '' }, /authKoa: secret must be a non-empty string/],
  ['no url', { url: undefined }, /authKoa: url is required/],
  ['a relative url', { url: '/app' }, /authKoa: url must be an absolute http\(s\) URL/],
  ['an ftp url', { url: 'ftp://example.com' }, /authKoa: url must be an absolute http\(s\) URL/],
  ['no provider', { providers: [] }, /authKoa: providers must list at least one provider/],
  ['a bad token duration', { tokenDuration: '5 minutes' }, /authKoa: tokenDuration must be/],
  ['a negative cookie duration', { cookieDuration: -5 }, /authKoa: cookieDuration must be/],
  ['a bad maxSessionAge', { maxSessionAge: '1y' }, /authKoa: maxSessionAge must be/],
  ['a bad resize limit', { avatarResizeLimit: -1 }, /authKoa: avatarResizeLimit/],
  ['a bad route path', { authRoutePath: 'auth' }, /authKoa: authRoutePath must be a path/],
  ['a bad sameSite', { sameSite: 'loose' }, /authKoa: sameSite must be/],
  ['sameSite none on http', { sameSite: 'none' }, /authKoa: sameSite 'none' needs secure cookies/],
  ['a non-function validator', { validator: 'yes' }, /authKoa: validator must be a function/],
  ['a bad logger', { logger: 42 }, /authKoa: logger must be/],
  ['audiences not a list', { audiences: 'a,b' }, /authKoa: audiences must be an array of strings/],
  [
    'duplicate provider names',
    { providers: [direct, { ...direct }] },
    /authKoa: providers\[1\]\.name "local" is used by another provider/,
  ],
  [
    'an unknown kind',
    { providers: [{ kind: 'magic', name: 'm' }] },
    /authKoa: providers\[0\]\.kind "magic" is not a known provider kind/,
  ],
  [
    'an unknown built-in name',
    { providers: [{ name: 'myspace', cid: 'a', csecret: 'b' }] },
    /authKoa: providers\[0\]\.name "myspace" is not a built-in provider/,
  ],
  [
    'a provider name with a slash',
    { providers: [{ ...direct, name: 'a/b' }] },
    /authKoa: providers\[0\]\.name "a\/b" is not allowed/,
  ],
  [
    'a provider named like a route',
    { providers: [{ ...direct, name: 'list' }] },
    /authKoa: providers\[0\]\.name "list" is not allowed/,
  ],
];

for (const [what, change, message] of bad) {
  test(`authKoa() throws naming the option for ${what}`, (t) => {
    const err = t.throws(() => authKoa({ ...base, ...change } as AuthKoaOptions), { instanceOf: TypeError });
    t.regex(err!.message, message);
  });
}

// Options only a provider kind's own code can check are checked when the kind is loaded: `ready` rejects.
const badForKind: [string, Record<string, unknown>, RegExp][] = [
  [
    'a direct provider without checker',
    { providers: [{ kind: 'direct', name: 'd' }] },
    /^authKoa: providers\[0\] \(direct\): checker must be a function/,
  ],
  [
    'a default name used twice',
    {
      providers: [
        { kind: 'dev', port: 0 },
        { kind: 'dev', port: 0 },
      ],
    },
    /^authKoa: providers\[1\]\.name "dev" is used by another provider/,
  ],
];

for (const [what, change, message] of badForKind) {
  test(`auth.ready rejects naming the option for ${what}, and requests get 503 JSON`, async (t) => {
    const auth = authKoa({ ...base, ...change } as AuthKoaOptions);
    const err = await t.throwsAsync(auth.ready, { instanceOf: TypeError });
    t.regex(err!.message, message);
    const app = new Koa();
    app.silent = true; // failures on purpose: authkoa emits each 5xx, which Koa would print
    app.use(auth);
    app.use(auth.middleware.auth);
    const served = await serve(app.callback());
    t.teardown(() => served.close());
    for (const path of ['/auth/list', '/private']) {
      const res = await fetch(served.url + path);
      t.is(res.status, 503, path);
      t.like(await res.json(), { code: 'not_started' }, path);
    }
    await auth.close();
  });
}

test('a ready Provider object is accepted as it is', async (t) => {
  const auth = authKoa({ ...base, providers: [{ name: 'mine', async login() {}, async logout() {} }] });
  await auth.ready;
  t.deepEqual(
    auth.providers.list().map((p) => p.name),
    ['mine'],
  );
  await auth.close();
});
