import test from 'ava';
import Koa from 'koa';
import { authKoa, type Provider } from '../../lib/index.js';
import { contractRecorder } from '../helpers/answers.js';
import { Client, decodeJwt, serve, startApp } from '../helpers/http.js';
import { baseOptions, directProvider } from './fixtures.js';

test('/auth/list answers provider names in registration order', async (t) => {
  const other: Provider = { name: 'mine', async login() {}, async logout() {} };
  const app = await startApp(baseOptions({ providers: [directProvider, other] }));
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/auth/list');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.deepEqual(await res.json(), ['direct', 'mine']);
  const details = await new Client(app.url).fetch('/auth/list?details=1');
  t.deepEqual(await details.json(), [
    { name: 'direct', kind: 'direct' },
    { name: 'mine', kind: 'custom' },
  ]);
});

test('every auth response carries the CSP and nosniff headers', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  for (const path of ['/auth/list', '/auth/user', '/auth/status', '/auth/logout', '/auth/bad/login', '/auth']) {
    const res = await new Client(app.url).fetch(path);
    t.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox; frame-ancestors 'none'", path);
    t.is(res.headers.get('x-content-type-options'), 'nosniff', path);
  }
});

test('/auth/user: 401 JSON without a session, the user with aud after login', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const before = await c.fetch('/auth/user');
  t.is(before.status, 401);
  t.is(((await before.json()) as { code: string }).code, 'no_token');
  await c.fetch('/auth/direct/login?user=dev_direct&passwd=password&aud=my-site');
  t.is((await c.fetch('/auth/user')).status, 401, 'the cookie alone is not enough: XSRF header required');
  const res = await c.fetch('/auth/user', { headers: c.xsrf() });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), {
    name: 'dev_direct',
    id: 'direct_38773b45e3a477434abb6d08668358a2b0ddd2f5',
    picture: '',
    aud: 'my-site',
  });
});

test('/auth/status: not logged in, then logged in with the name', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.deepEqual(await (await c.fetch('/auth/status')).json(), { status: 'not logged in' });
  await c.fetch('/auth/direct/login', { method: 'POST', form: { user: 'dev_direct', passwd: 'password' } });
  t.deepEqual(await (await c.fetch('/auth/status', { headers: c.xsrf() })).json(), {
    status: 'logged in',
    user: 'dev_direct',
  });
});

test('/auth/logout and /auth/<name>/logout clear both cookies', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  for (const path of ['/auth/logout', '/auth/direct/logout']) {
    const c = new Client(app.url);
    await c.fetch('/auth/direct/login?user=u&passwd=password');
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

test('unknown provider → 400 JSON; unknown action → 404; PUT → 405', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const unknown = await c.fetch('/auth/bad/login');
  t.is(unknown.status, 400);
  t.deepEqual(await unknown.json(), { error: 'provider bad not supported', code: 'unknown_provider' });
  t.is((await c.fetch('/auth/direct/whatever')).status, 404);
  t.is((await c.fetch('/auth')).status, 404);
  const put = await c.fetch('/auth/direct/login', { method: 'PUT' });
  t.is(put.status, 405);
  t.is(((await put.json()) as { code: string }).code, 'method_not_allowed');
});

test('requests outside /auth and /avatar pass through untouched, with no token work', async (t) => {
  let readerCalls = 0;
  const app = await startApp({
    ...baseOptions(),
    secret: undefined,
    secretReader: () => (readerCalls++, 'a-secret-read-from-somewhere-0123456789'),
  });
  t.teardown(() => app.close());
  app.app.use((ctx) => {
    ctx.body = 'plain';
  });
  readerCalls = 0; // start-up asked it once per audience (the secretReader check); requests are what count here
  const res = await new Client(app.url).fetch('/something/else', {
    headers: { 'X-JWT': 'garbage', cookie: 'JWT=garbage' },
  });
  t.is(res.status, 200);
  t.is(await res.text(), 'plain');
  t.is(res.headers.get('content-security-policy'), null);
  t.is(readerCalls, 0);
  t.is((await new Client(app.url).fetch('/authority')).status, 200, 'a path merely starting with /auth is not ours');
});

test('cookies: JWT HttpOnly, XSRF readable and equal to the jti, SameSite=Lax, Max-Age = cookie duration', async (t) => {
  const app = await startApp(baseOptions({ cookieDuration: '24h' }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'dev_direct', passwd: 'password' } });
  t.is(res.status, 200);
  const [jwt, xsrf] = c.lastCookies;
  t.is(jwt!.name, 'JWT');
  t.is(xsrf!.name, 'XSRF-TOKEN');
  t.true(jwt!.attrs.httponly);
  t.is(xsrf!.attrs.httponly, undefined);
  t.is(jwt!.attrs.samesite, 'Lax');
  t.is(jwt!.attrs.path, '/');
  t.is(jwt!.attrs['max-age'], '86400');
  t.is(jwt!.attrs.secure, undefined);
  t.is(xsrf!.value, decodeJwt(jwt!.value).jti);
  t.regex(xsrf!.value, /^[0-9a-f]{40}$/);
});

test('claims keep the original layout: iss, aud string, exp, iat, jti, user, auth_provider', async (t) => {
  const app = await startApp(baseOptions({ issuer: 'my-app' }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch('/auth/direct/login?user=dev_direct&passwd=password&aud=site-1');
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.deepEqual(Object.keys(claims).slice(0, 7), ['iss', 'aud', 'exp', 'iat', 'jti', 'user', 'auth_provider']);
  t.is(claims.iss, 'my-app');
  t.is(claims.aud, 'site-1');
  t.is(claims.exp - claims.iat, 15 * 60);
  t.deepEqual(claims.auth_provider, { name: 'direct' });
  const header = JSON.parse(Buffer.from(c.jar.get('JWT')!.split('.')[0]!, 'base64url').toString());
  t.deepEqual(header, { alg: 'HS256', typ: 'JWT' });
});

test('an https url makes the cookies Secure', async (t) => {
  const app = await startApp({ ...baseOptions(), url: 'https://app.example' });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch('/auth/direct/login?user=u&passwd=password');
  t.true(c.cookie('JWT')!.attrs.secure);
  t.true(c.cookie('XSRF-TOKEN')!.attrs.secure);
});

test('sendJWTHeader also answers the token in X-JWT; cookie names and domain are configurable', async (t) => {
  const app = await startApp(
    baseOptions({ sendJWTHeader: true, jwtCookieName: 'jc1', xsrfCookieName: 'xc1', cookieDomain: 'example.test' }),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await c.fetch('/auth/direct/login?user=u&passwd=password');
  t.is(res.headers.get('x-jwt'), c.cookie('jc1')!.value);
  t.is(c.cookie('xc1')!.attrs.domain, 'example.test');
});

test('the app behind a mount prefix still builds provider URLs from the full path', async (t) => {
  // A sub-app mounted by hand at /api strips the prefix from ctx.path, as koa-mount does.
  const auth = authKoa({ ...baseOptions(), url: 'http://127.0.0.1:1' });
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/api/')) return next();
    ctx.path = ctx.path.slice(4);
    return contract.use(ctx, () => auth(ctx, next));
  });
  const contract = contractRecorder(auth);
  const served = await serve(app.callback());
  t.teardown(() =>
    contract.closed(async () => {
      await auth.close();
      await served.close();
    }),
  );
  const res = await new Client(served.url).fetch('/api/auth/list');
  t.deepEqual(await res.json(), ['direct']);
});
