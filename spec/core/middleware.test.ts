import { createHmac } from 'node:crypto';
import test from 'ava';
import { Client, decodeJwt, manualClock, startApp } from '../helpers/http.js';
import { baseOptions, SECRET } from './fixtures.js';

async function loggedIn(app: { url: string }, user = 'dev_direct', query = '') {
  const c = new Client(app.url);
  const res = await c.fetch(`/auth/direct/login${query}`, { method: 'POST', json: { user, passwd: 'password' } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return c;
}

function forge(payload: object, header: object = { alg: 'HS256', typ: 'JWT' }, secret = SECRET): string {
  const h = Buffer.from(JSON.stringify(header)).toString('base64url');
  const p = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${h}.${p}.${createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url')}`;
}

test('auth: no token → 401 JSON with a code', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/private');
  t.is(res.status, 401);
  t.regex(res.headers.get('content-type')!, /application\/json/);
  t.deepEqual(await res.json(), { error: 'token is not presented', code: 'no_token' });
});

test('auth: cookie token with the XSRF header passes and puts the user on the request', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const res = await c.fetch('/private', { headers: c.xsrf() });
  t.is(res.status, 201);
  const body = (await res.json()) as { user: { name: string; id: string; aud: string } };
  t.is(body.user.name, 'dev_direct');
  t.is(body.user.id, 'direct_38773b45e3a477434abb6d08668358a2b0ddd2f5');
  t.is(body.user.aud, '');
});

test('auth: cookie token without the XSRF header → 401 xsrf_mismatch, and the session is kept', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const res = await c.fetch('/private');
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'xsrf_mismatch');
  t.deepEqual(res.headers.getSetCookie(), []);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
});

test('auth: a wrong XSRF header, or one from another session, → 401', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const alice = await loggedIn(app, 'alice');
  const bob = await loggedIn(app, 'bob');
  t.is((await alice.fetch('/private', { headers: { 'X-XSRF-TOKEN': 'nope' } })).status, 401);
  t.is((await alice.fetch('/private', { headers: bob.xsrf() })).status, 401);
});

test('auth: xsrfIgnoreMethods exempts GET; disableXSRF turns the check off', async (t) => {
  const ignore = await startApp(baseOptions({ xsrfIgnoreMethods: ['get'] }));
  const off = await startApp(baseOptions({ disableXSRF: true }));
  t.teardown(() => Promise.all([ignore.close(), off.close()]).then(() => undefined));
  const c1 = await loggedIn(ignore);
  t.is((await c1.fetch('/private')).status, 201);
  t.is((await c1.fetch('/private', { method: 'POST' })).status, 401);
  const c2 = await loggedIn(off);
  t.is((await c2.fetch('/private', { method: 'POST' })).status, 201);
});

test('auth: X-JWT header and token query are accepted without XSRF', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const jwt = c.jar.get('JWT')!;
  const anon = new Client(app.url);
  t.is((await anon.fetch('/private', { headers: { 'X-JWT': jwt } })).status, 201);
  t.is((await anon.fetch(`/private?token=${jwt}`)).status, 201);
});

test('token sources: query wins over header, header over cookie', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const alice = await loggedIn(app, 'alice');
  const bob = await loggedIn(app, 'bob');
  const carol = await loggedIn(app, 'carol');
  const name = async (res: Response) => ((await res.json()) as { user: { name: string } }).user.name;
  t.is(
    await name(
      await alice.fetch(`/private?token=${bob.jar.get('JWT')}`, { headers: { 'X-JWT': carol.jar.get('JWT')! } }),
    ),
    'bob',
  );
  t.is(await name(await alice.fetch('/private', { headers: { 'X-JWT': carol.jar.get('JWT')! } })), 'carol');
});

test('refresh: an expired cookie token is re-issued with the same jti while the cookie lives', async (t) => {
  const clock = manualClock();
  let updates = 0;
  const app = await startApp(baseOptions({ clock, claimsUpdater: (c) => (updates++, c) }));
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const before = decodeJwt(c.jar.get('JWT')!);
  const xsrf = c.xsrf();
  clock.advance(16 * 60_000);
  const res = await c.fetch('/private', { headers: xsrf });
  t.is(res.status, 201);
  const jwt = c.cookie('JWT');
  t.truthy(jwt, 'the JWT cookie is re-issued');
  t.is(jwt!.attrs['max-age'], String(31 * 86400));
  const after = decodeJwt(jwt!.value);
  t.is(after.jti, before.jti);
  t.true(after.exp > before.exp);
  t.is(c.cookie('XSRF-TOKEN')!.value, before.jti);
  t.is(updates, 2, 'the ClaimsUpdater ran at login and again at refresh');
});

test('refresh: concurrent requests carrying one expired token re-issue it once', async (t) => {
  const clock = manualClock();
  let updates = 0;
  const app = await startApp(baseOptions({ clock, claimsUpdater: (c) => (updates++, c) }));
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const cookie = `JWT=${c.jar.get('JWT')}`;
  clock.advance(16 * 60_000);
  const results = await Promise.all(
    Array.from({ length: 5 }, () => fetch(`${app.url}/private`, { headers: { cookie, ...c.xsrf() } })),
  );
  t.deepEqual(
    results.map((r) => r.status),
    [201, 201, 201, 201, 201],
  );
  t.is(updates, 2, 'one login plus one refresh');
  t.is(results.filter((r) => r.headers.getSetCookie().length > 0).length, 1);
});

test('refresh is single-flight: 5 concurrent requests with one expired token and an async ClaimsUpdater re-issue it once', async (t) => {
  const clock = manualClock();
  let updates = 0;
  let refreshing = false;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = 0;
  let allIn!: () => void;
  const all = new Promise<void>((resolve) => (allIn = resolve));
  const app = await startApp(
    baseOptions({
      clock,
      claimsUpdater: async (c) => {
        updates++;
        if (refreshing) await gate; // the refresh's updater waits until every request is in
        return c;
      },
    }),
    (router, auth) =>
      router.get(
        '/counted',
        (_ctx, next) => {
          if (++arrived === 5) allIn();
          return next();
        },
        auth.middleware.auth,
        (ctx) => {
          ctx.status = 201;
        },
      ),
  );
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const cookie = `JWT=${c.jar.get('JWT')}`;
  clock.advance(16 * 60_000);
  refreshing = true;
  const requests = Array.from({ length: 5 }, () => fetch(`${app.url}/counted`, { headers: { cookie, ...c.xsrf() } }));
  await all;
  await new Promise((resolve) => setImmediate(resolve)); // every request has run up to the refresh (no clock involved)
  release();
  const results = await Promise.all(requests);
  t.deepEqual(
    results.map((r) => r.status),
    [201, 201, 201, 201, 201],
  );
  t.is(updates, 2, 'one login plus one refresh');
  const issued = results.flatMap((r) => r.headers.getSetCookie().filter((h) => h.startsWith('JWT=')));
  t.is(issued.length, 1, 'one response carries the re-issued cookie');
});

test('an expired token by header or query is refused, not refreshed', async (t) => {
  const clock = manualClock();
  const app = await startApp(baseOptions({ clock }));
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const jwt = c.jar.get('JWT')!;
  clock.advance(16 * 60_000);
  const res = await new Client(app.url).fetch('/private', { headers: { 'X-JWT': jwt } });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'token_expired');
  t.deepEqual(res.headers.getSetCookie(), []);
  t.is((await new Client(app.url).fetch(`/private?token=${jwt}`)).status, 401);
});

test('maxSessionAge stops refreshes once the session is older than it', async (t) => {
  const clock = manualClock();
  const app = await startApp(baseOptions({ clock, maxSessionAge: '1h' }));
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  clock.advance(30 * 60_000);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  clock.advance(31 * 60_000);
  const res = await c.fetch('/private', { headers: c.xsrf() });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'session_expired');
  t.false(c.jar.has('JWT'), 'cookies are cleared');
});

test("tampered payload, stripped signature, alg none, HS512 and another secret's token are refused", async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  const jwt = c.jar.get('JWT')!;
  const [h, p, s] = jwt.split('.');
  const claims = decodeJwt(jwt);
  const edited = Buffer.from(JSON.stringify({ ...claims, user: { ...claims.user, name: 'root' } })).toString(
    'base64url',
  );
  const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const cases: Record<string, string> = {
    'edited payload': `${h}.${edited}.${s}`,
    'stripped signature': `${h}.${p}.`,
    'alg none': `${noneHeader}.${p}.`,
    'alg none with the old signature': `${noneHeader}.${p}.${s}`,
    HS512: forge(claims, { alg: 'HS512', typ: 'JWT' }),
    'another secret': forge(claims, undefined, 'some other secret'),
    garbage: 'abc',
  };
  for (const [what, token] of Object.entries(cases)) {
    const res = await new Client(app.url).fetch('/private', { headers: { 'X-JWT': token } });
    t.is(res.status, 401, what);
  }
  t.is(
    (await new Client(app.url).fetch('/private', { headers: { 'X-JWT': forge(claims) } })).status,
    201,
    'control: a correctly signed copy passes',
  );
});

test('wrong issuer and a future nbf are refused', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const claims = decodeJwt((await loggedIn(app)).jar.get('JWT')!);
  const anon = new Client(app.url);
  t.is((await anon.fetch('/private', { headers: { 'X-JWT': forge({ ...claims, iss: 'someone-else' }) } })).status, 401);
  const res = await anon.fetch('/private', { headers: { 'X-JWT': forge({ ...claims, nbf: claims.exp }) } });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'token_not_valid_yet');
});

test('audiences: login for an audience outside the list is refused, and so is such a token on check', async (t) => {
  const app = await startApp(baseOptions({ audiences: ['site-a', 'site-b'] }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const refused = await c.fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'u', passwd: 'password', aud: 'site-x' },
  });
  t.is(refused.status, 403);
  t.is(((await refused.json()) as { code: string }).code, 'aud_not_allowed');
  t.deepEqual(refused.headers.getSetCookie(), []);
  const ok = await c.fetch('/auth/direct/login', {
    method: 'POST',
    json: { user: 'u', passwd: 'password', aud: 'site-a' },
  });
  t.is(ok.status, 200);
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.is(claims.aud, 'site-a');
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  const res = await new Client(app.url).fetch('/private', {
    headers: { 'X-JWT': forge({ ...claims, aud: 'site-x' }) },
  });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'aud_rejected');
});

test('per-audience secrets: a token signed for audience A is refused on B', async (t) => {
  const secrets: Record<string, string> = {
    'site-a': 'secret-of-site-a-0123456789',
    'site-b': 'secret-of-site-b-0123456789',
  };
  const app = await startApp({
    ...baseOptions(),
    secret: undefined,
    secretReader: (aud) => secrets[aud] ?? '',
    audSecrets: true,
  });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is(
    (await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'u', passwd: 'password', aud: 'site-a' } }))
      .status,
    200,
  );
  const claims = decodeJwt(c.jar.get('JWT')!);
  t.is((await c.fetch('/private', { headers: c.xsrf() })).status, 201);
  // Same payload relabelled to B but signed with A's secret: the reader hands B's secret, the HMAC fails.
  const relabelled = forge({ ...claims, aud: 'site-b' }, undefined, secrets['site-a']);
  t.is((await new Client(app.url).fetch('/private', { headers: { 'X-JWT': relabelled } })).status, 401);
  t.is(
    (
      await new Client(app.url).fetch('/private', {
        headers: { 'X-JWT': forge({ ...claims, aud: 'site-b' }, undefined, secrets['site-b']) },
      })
    ).status,
    201,
  );
});

test('two instances with different secrets reject each other’s tokens', async (t) => {
  const a = await startApp(baseOptions());
  const b = await startApp({ ...baseOptions(), secret: 'a completely different secret 42' });
  t.teardown(() => Promise.all([a.close(), b.close()]).then(() => undefined));
  const ca = await loggedIn(a);
  const cb = await loggedIn(b);
  t.is((await new Client(b.url).fetch('/private', { headers: { 'X-JWT': ca.jar.get('JWT')! } })).status, 401);
  t.is((await new Client(a.url).fetch('/private', { headers: { 'X-JWT': cb.jar.get('JWT')! } })).status, 401);
});

test('validator false → 401 and the cookies are cleared', async (t) => {
  const app = await startApp(baseOptions({ validator: (_token, claims) => claims.user?.name !== 'blocked' }));
  t.teardown(() => app.close());
  const ok = await loggedIn(app, 'fine');
  t.is((await ok.fetch('/private', { headers: ok.xsrf() })).status, 201);
  const c = await loggedIn(app, 'blocked');
  const res = await c.fetch('/private', { headers: c.xsrf() });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'user_blocked');
  t.is(c.cookie('JWT')!.attrs['max-age'], '0');
  t.is(c.cookie('XSRF-TOKEN')!.attrs['max-age'], '0');
});

test('validator: its edits to the claims it is given reach this request only', async (t) => {
  let calls = 0;
  const app = await startApp(
    baseOptions({
      validator: (_token, claims) => {
        calls++;
        if (calls === 1) claims.user = { ...claims.user!, name: 'renamed' };
        else if (calls === 2) claims.user!.attrs = { seen: true };
        return true;
      },
    }),
  );
  t.teardown(() => app.close());
  const c = await loggedIn(app, 'val');
  const user = async () =>
    (
      (await (await c.fetch('/private', { headers: c.xsrf() })).json()) as {
        user: { name: string; aud: string; attrs?: object };
      }
    ).user;
  t.is((await user()).name, 'renamed', 'a replaced user goes on');
  t.deepEqual((await user()).attrs, { seen: true }, 'an edited user goes on');
  const third = await user();
  t.is(third.name, 'val', 'no edit outlives its request');
  t.is(third.attrs, undefined);
  t.is(third.aud, '');
});

test('a token from a provider no longer configured is refused', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const claims = decodeJwt((await loggedIn(app)).jar.get('JWT')!);
  const removed = forge({ ...claims, auth_provider: { name: 'gone' }, user: { ...claims.user, id: 'gone_123' } });
  const res = await new Client(app.url).fetch('/private', { headers: { 'X-JWT': removed } });
  t.is(res.status, 401);
  t.is(((await res.json()) as { code: string }).code, 'provider_not_allowed');
  // A token without auth_provider (minted by the application, or by an old version of the original)
  // falls back on its id's prefix, as in the original.
  const byPrefix = forge({ ...claims, auth_provider: undefined });
  t.is((await new Client(app.url).fetch('/private', { headers: { 'X-JWT': byPrefix } })).status, 201);
});

test('the token’s provider is its exact auth_provider name: a removed `a_b` beside `a`, a removed passkey beside `local`', async (t) => {
  const checker = () => true;
  const app = await startApp(
    baseOptions({
      providers: [
        { kind: 'direct', name: 'a', checker },
        { kind: 'direct', name: 'local', checker },
      ],
    }),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch('/auth/a/login', { method: 'POST', json: { user: 'x', passwd: 'p' } })).status, 200);
  const claims = decodeJwt(c.jar.get('JWT')!);
  const status = async (payload: object) =>
    (await new Client(app.url).fetch('/private', { headers: { 'X-JWT': forge(payload) } })).status;
  const as = (provider: string | undefined, id: string) => ({
    ...claims,
    auth_provider: provider === undefined ? undefined : { name: provider },
    user: { ...claims.user, id },
  });
  t.is(await status(as('a', 'a_1f')), 201, 'a configured provider');
  t.is(await status(as('a_b', 'a_b_1f')), 401, 'a removed `a_b`: its ids start with `a_`, which says nothing');
  // A passkey login keeps the account's id, so its user id names the password provider.
  t.is(await status(as('passkey', 'local_1f')), 401, 'a removed passkey provider beside `local`');
  t.is(
    await status({ ...claims, auth_provider: {}, user: { ...claims.user, id: 'a_1f' } }),
    401,
    'an auth_provider without a name',
  );
  t.is(await status(as(undefined, 'local_1f')), 201, 'no auth_provider: the id names `local`');
  t.is(await status(as(undefined, 'gone_1f')), 401, 'no auth_provider: the id names nothing configured');

  // Names may contain `_`: without the claim, `a_b_…` belongs to a configured `a_b`.
  const underscored = await startApp(baseOptions({ providers: [{ kind: 'direct', name: 'a_b', checker }] }));
  t.teardown(() => underscored.close());
  const viaId = await new Client(underscored.url).fetch('/private', {
    headers: { 'X-JWT': forge(as(undefined, 'a_b_1f')) },
  });
  t.is(viaId.status, 201);
  t.is(
    (await new Client(underscored.url).fetch('/private', { headers: { 'X-JWT': forge(as(undefined, 'a_1f')) } }))
      .status,
    401,
  );
});

test('a handshake token or a token without user is not a session', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const claims = decodeJwt((await loggedIn(app)).jar.get('JWT')!);
  const hs = forge({ ...claims, handshake: { state: 'x' } });
  t.is((await new Client(app.url).fetch('/private', { headers: { 'X-JWT': hs } })).status, 401);
  const { user: _u, ...noUser } = claims;
  t.is((await new Client(app.url).fetch('/private', { headers: { 'X-JWT': forge(noUser) } })).status, 401);
});

test('admin: admin by basic auth 201, others 401, a logged-in non-admin 403', async (t) => {
  const app = await startApp(baseOptions({ adminPasswd: 'admin-secret' }));
  t.teardown(() => app.close());
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const anon = new Client(app.url);
  const ok = await anon.fetch('/admin', { headers: basic('admin', 'admin-secret') });
  t.is(ok.status, 201);
  t.deepEqual(((await ok.json()) as { user: unknown }).user, {
    id: 'admin',
    name: 'admin',
    picture: '',
    attrs: { admin: true },
  });
  t.is((await anon.fetch('/admin', { headers: basic('admin', 'wrong') })).status, 401);
  t.is((await anon.fetch('/admin', { headers: basic('root', 'admin-secret') })).status, 401);
  t.is((await anon.fetch('/admin')).status, 401);
  const c = await loggedIn(app);
  const denied = await c.fetch('/admin', { headers: c.xsrf() });
  t.is(denied.status, 403);
  t.is(((await denied.json()) as { code: string }).code, 'not_admin');
});

test('admin: a user whose claims carry attrs.admin passes', async (t) => {
  const app = await startApp(
    baseOptions({
      claimsUpdater: (c) => (c.user?.name === 'boss' ? { ...c, user: { ...c.user, attrs: { admin: true } } } : c),
    }),
  );
  t.teardown(() => app.close());
  const c = await loggedIn(app, 'boss');
  t.is((await c.fetch('/admin', { headers: c.xsrf() })).status, 201);
});

test('basic auth by checker: its user goes on the request and adminPasswd is ignored', async (t) => {
  const app = await startApp(
    baseOptions({
      adminPasswd: 'admin-secret',
      basicAuthChecker: async (user, passwd) => ({
        ok: passwd === 'letmein',
        user: { id: `svc_${user}`, name: user, picture: '', role: 'editor' },
      }),
    }),
  );
  t.teardown(() => app.close());
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  const anon = new Client(app.url);
  const ok = await anon.fetch('/editors', { headers: basic('robot', 'letmein') });
  t.is(ok.status, 201);
  t.is(((await ok.json()) as { user: { id: string } }).user.id, 'svc_robot');
  t.is((await anon.fetch('/private', { headers: basic('robot', 'nope') })).status, 401);
  t.is((await anon.fetch('/private', { headers: basic('admin', 'admin-secret') })).status, 401);
});

test('basic auth by checker: a synchronous checker, one that throws and one that rejects are all answered in JSON', async (t) => {
  const checkers = {
    sync: (user: string, passwd: string) => ({ ok: passwd === 'pw' }),
    throws: (): never => {
      throw new Error('directory down');
    },
    rejects: async (): Promise<never> => {
      throw new Error('directory down');
    },
  };
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  for (const [kind, basicAuthChecker] of Object.entries(checkers)) {
    const app = await startApp(baseOptions({ basicAuthChecker }));
    t.teardown(() => app.close());
    const anon = new Client(app.url);
    if (kind === 'sync') {
      const ok = await anon.fetch('/private', { headers: basic('robot', 'pw') });
      t.is(ok.status, 201);
      t.deepEqual(
        ((await ok.json()) as { user: unknown }).user,
        { id: 'robot', name: 'robot', picture: '' },
        'no user from the checker: one named after the login',
      );
      const utf8 = await anon.fetch('/private', { headers: basic('José 日本', 'pw') });
      t.is(
        ((await utf8.json()) as { user: { name: string } }).user.name,
        'José 日本',
        'UTF-8 credentials decode as UTF-8',
      );
      t.is(
        (await anon.fetch('/private', { headers: { authorization: 'Basic !!not base64' } })).status,
        401,
        'garbage is a plain 401',
      );
      const wrong = await anon.fetch('/private', { headers: basic('robot', 'nope') });
      t.is(wrong.status, 401);
      t.is(((await wrong.json()) as { code: string }).code, 'basic_auth_failed');
    } else {
      const res = await anon.fetch('/private', { headers: basic('robot', 'pw') });
      t.is(res.status, 401, kind);
      t.deepEqual(await res.json(), { error: 'basic auth check failed', code: 'basic_auth_failed' }, kind);
    }
  }
});

test('rbac: a role in the list passes (any case); another role or none → 403', async (t) => {
  const roles: Record<string, string> = { ed: 'Editor', rd: 'reader' };
  const app = await startApp(
    baseOptions({
      claimsUpdater: (c) =>
        c.user && roles[c.user.name] ? { ...c, user: { ...c.user, role: roles[c.user.name] } } : c,
    }),
  );
  t.teardown(() => app.close());
  const ed = await loggedIn(app, 'ed');
  t.is((await ed.fetch('/editors', { headers: ed.xsrf() })).status, 201);
  const rd = await loggedIn(app, 'rd');
  const res = await rd.fetch('/editors', { headers: rd.xsrf() });
  t.is(res.status, 403);
  t.is(((await res.json()) as { code: string }).code, 'role_denied');
  const none = await loggedIn(app, 'plain');
  t.is((await none.fetch('/editors', { headers: none.xsrf() })).status, 403);
  t.is((await new Client(app.url).fetch('/editors')).status, 401);
});

test('trace: passes without a user, with a user, and with a bad token', async (t) => {
  const app = await startApp(baseOptions());
  t.teardown(() => app.close());
  const anon = await new Client(app.url).fetch('/open');
  t.is(anon.status, 201);
  t.deepEqual(await anon.json(), { user: null });
  const c = await loggedIn(app);
  const withUser = await c.fetch('/open', { headers: c.xsrf() });
  t.is(((await withUser.json()) as { user: { name: string } }).user.name, 'dev_direct');
  const bad = await new Client(app.url).fetch('/open', { headers: { 'X-JWT': 'bad.token.here' } });
  t.is(bad.status, 201);
});

test('updateUser: the updater edits the request user; without a user it is not called', async (t) => {
  let calls = 0;
  const app = await startApp(
    baseOptions({ userUpdater: (u) => (calls++, { ...u, attrs: { ...u.attrs, seen: true } }) }),
  );
  t.teardown(() => app.close());
  await new Client(app.url).fetch('/updated');
  t.is(calls, 0);
  const c = await loggedIn(app);
  const res = await c.fetch('/updated', { headers: c.xsrf() });
  t.deepEqual(((await res.json()) as { user: { attrs: unknown } }).user.attrs, { seen: true });
  t.is(calls, 1);
});

test('errorHandler replaces the failure body and gets the status and code', async (t) => {
  const seen: Array<[number, string]> = [];
  const app = await startApp(
    baseOptions({
      errorHandler: (ctx, status, err) => {
        seen.push([status, err.code]);
        ctx.status = status;
        ctx.body = `custom ${status}`;
      },
    }),
  );
  t.teardown(() => app.close());
  const res = await new Client(app.url).fetch('/private');
  t.is(res.status, 401);
  t.is(await res.text(), 'custom 401');
  const c = await loggedIn(app);
  t.is((await c.fetch('/admin', { headers: c.xsrf() })).status, 403);
  t.deepEqual(seen, [
    [401, 'no_token'],
    [403, 'not_admin'],
  ]);
});

test('secret rotation: tokens of a previous secret still verify and are re-signed with the new one at refresh', async (t) => {
  const clock = manualClock();
  const before = await startApp(baseOptions({ clock }));
  const c = await loggedIn(before);
  await before.close();
  const after = await startApp({
    ...baseOptions({ clock }),
    secret: 'the new secret after rotation 0123',
    previousSecrets: [SECRET],
  });
  t.teardown(() => after.close());
  const moved = new Client(after.url);
  for (const [k, v] of c.jar) moved.jar.set(k, v);
  t.is((await moved.fetch('/private', { headers: moved.xsrf() })).status, 201, 'the old-secret cookie still works');
  clock.advance(16 * 60_000);
  t.is((await moved.fetch('/private', { headers: moved.xsrf() })).status, 201);
  const reissued = moved.jar.get('JWT')!;
  const newOnly = await startApp({ ...baseOptions({ clock }), secret: 'the new secret after rotation 0123' });
  t.teardown(() => newOnly.close());
  t.is(
    (await new Client(newOnly.url).fetch('/private', { headers: { 'X-JWT': reissued } })).status,
    201,
    'the refreshed token is signed with the new secret',
  );
  const refused = await new Client(newOnly.url).fetch('/private', { headers: { 'X-JWT': c.jar.get('JWT')! } });
  t.is(refused.status, 401, 'without previousSecrets the old token is refused');
  t.is(((await refused.json()) as { code: string }).code, 'token_invalid');
});

test('an error thrown behind auth is the application’s: it passes through, not turned into a 401', async (t) => {
  const app = await startApp(baseOptions(), (router, auth) => {
    router.get('/broken', auth.middleware.auth, () => {
      throw Object.assign(new Error('handler failed'), { status: 418, expose: true });
    });
  });
  t.teardown(() => app.close());
  const c = await loggedIn(app);
  // Twice: the first read verifies the token, the second takes the already-verified (synchronous) path.
  for (let i = 0; i < 2; i++) {
    const res = await c.fetch('/broken', { headers: c.xsrf() });
    t.is(res.status, 418);
    t.is(await res.text(), 'handler failed');
  }
});

test('a read user keeps fields authkoa does not know, gets aud, and edits never reach the next request', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const token = forge({
    iss: 'authkoa',
    aud: 'site',
    exp: now + 600,
    iat: now,
    jti: 'j1',
    user: { name: 'ext', id: 'direct_ext', picture: '', attrs: { admin: false, tags: ['a'] }, department: 'ops' },
  });
  const app = await startApp(baseOptions(), (router, auth) => {
    router.get('/mutate', auth.middleware.auth, (ctx) => {
      const user: any = ctx.state.user; // the token's user, with a field a User does not declare
      ctx.body = { user: structuredClone(user) };
      user.name = 'edited';
      user.attrs.tags.push('edited');
      user.department = 'edited';
    });
  });
  t.teardown(() => app.close());
  for (let i = 0; i < 3; i++) {
    const res = await new Client(app.url).fetch('/mutate', { headers: { 'X-JWT': token } });
    t.is(res.status, 200);
    t.deepEqual(((await res.json()) as { user: unknown }).user, {
      name: 'ext',
      id: 'direct_ext',
      picture: '',
      aud: 'site',
      attrs: { admin: false, tags: ['a'] },
      department: 'ops',
    });
  }
});

test('a "__proto__" key in a token\'s attrs stays a plain key of the copy, never its prototype', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  // Written by hand: JSON.stringify of an object literal would drop the key.
  const payload = `{"iss":"authkoa","aud":"","exp":${now + 600},"jti":"j2","user":{"name":"p","id":"direct_p","picture":"","attrs":{"__proto__":{"admin":true}}}}`;
  const h = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
  const p = Buffer.from(payload).toString('base64url');
  const token = `${h}.${p}.${createHmac('sha256', SECRET).update(`${h}.${p}`).digest('base64url')}`;
  const app = await startApp(baseOptions(), (router, auth) => {
    router.get('/attrs', auth.middleware.auth, (ctx) => {
      const attrs = ctx.state.user!.attrs!;
      ctx.body = {
        own: Object.keys(attrs),
        protoIsObject: Object.getPrototypeOf(attrs) === Object.prototype,
        admin: attrs.admin ?? null,
      };
    });
  });
  t.teardown(() => app.close());
  for (let i = 0; i < 2; i++) {
    const res = await new Client(app.url).fetch('/attrs', { headers: { 'X-JWT': token } });
    t.deepEqual(await res.json(), { own: ['__proto__'], protoIsObject: true, admin: null });
  }
});

test("time comes from each instance's own clock: one token, two instances an hour apart, judged each by its own", async (t) => {
  const early = manualClock();
  const late = manualClock();
  late.advance(60 * 60_000);
  const a = await startApp(baseOptions({ clock: early }));
  const b = await startApp(baseOptions({ clock: late }));
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const jwt = (await loggedIn(a)).jar.get('JWT')!;
  for (let i = 0; i < 3; i++) {
    t.is(
      (await new Client(a.url).fetch('/private', { headers: { 'X-JWT': jwt } })).status,
      201,
      'valid on the early clock',
    );
    const res = await new Client(b.url).fetch('/private', { headers: { 'X-JWT': jwt } });
    t.is(res.status, 401, 'expired on the late clock');
    t.is(((await res.json()) as { code: string }).code, 'token_expired');
  }
});
