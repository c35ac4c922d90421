/** What a provider written outside the package is handed: a narrow context, never the secrets. */
import test from 'ava';
import { authKoa, registerProvider, type AuthError, type ProviderDeps } from '../../lib/index.js';
import { Client, manualClock, startApp } from '../helpers/http.js';

const SECRET = 'provider-deps-secret-that-must-not-leak';
const OLD_SECRET = 'an-older-secret-that-must-not-leak-either';

/** Every string reachable from `root` through own properties (enumerable or not), prototypes included. */
function reachableStrings(root: unknown): string[] {
  const seen = new Set<unknown>();
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') found.push(v);
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v)) return;
    seen.add(v);
    if (v instanceof Map || v instanceof Set) for (const e of v) walk(e);
    for (const key of Reflect.ownKeys(v as object)) {
      const d = Object.getOwnPropertyDescriptor(v, key)!;
      if ('value' in d) walk(d.value);
    }
    walk(Object.getPrototypeOf(v));
  };
  walk(root);
  return found;
}

test('a third-party provider gets the narrow context (token service, avatars, state store, limiter, logger, url, clock, body reader) and no secret is reachable from it', async (t) => {
  let given: ProviderDeps | undefined;
  registerProvider({
    kind: 'deps-probe',
    create(opts, deps) {
      given = deps;
      return { name: String(opts.name), async login() {}, async logout() {} };
    },
  });
  const clock = () => 1_700_000_000_000;
  const auth = authKoa({
    secret: SECRET,
    previousSecrets: [OLD_SECRET],
    url: 'http://127.0.0.1:1',
    clock,
    providers: [{ kind: 'deps-probe', name: 'probe' } as import('../../lib/index.js').ProviderEntry],
  });
  await auth.ready;
  t.teardown(() => auth.close());
  t.deepEqual(Object.keys(given!).sort(), [
    'avatarProxy',
    'callbackURL',
    'checkCredentials',
    'clock',
    'completeLogin',
    'connections',
    'cookies',
    'endSession',
    'events',
    'factorChanged',
    'limiter',
    'logger',
    'randomId',
    'readCookie',
    'readParams',
    'routeURL',
    'safeRedirect',
    'sessionFlag',
    'sessionOnly',
    'sessionUser',
    'signer',
    'stateStore',
    'stores',
    'throttle',
    'tokenService',
    'tracing',
    'url',
    'userId',
  ]);
  // The shared state works for it, and is the service's (a second provider would see the same entries).
  t.true(await given!.stateStore.create('probe', 'k', { n: 1 }, clock() + 60_000));
  t.false(await given!.stateStore.create('probe', 'k', { n: 2 }, clock() + 60_000));
  t.is(await given!.limiter.hit([{ key: 'probe:x', limit: 1 }], 60_000), undefined);
  t.is(await given!.limiter.hit([{ key: 'probe:x', limit: 1 }], 60_000), 60_000);
  t.is(given!.clock, clock);
  t.is(given!.routeURL('probe', 'webhook'), 'http://127.0.0.1:1/auth/probe/webhook');
  t.deepEqual(given!.cookies, { name: 'JWT', secure: false });
  const strings = reachableStrings(given);
  t.true(strings.includes('http://127.0.0.1:1'), 'the walk does reach the context');
  t.false(
    strings.some((s) => s.includes(SECRET) || s.includes(OLD_SECRET)),
    'a secret is reachable from the provider context',
  );
  // The token service works for the provider all the same.
  const token = await given!.tokenService.create({ user: { name: 'p', id: 'probe_1', picture: '' } });
  t.regex(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
});

test('auth.tokens.get reads the request token from each source and hands out the caller’s own copy of its claims', async (t) => {
  const clock = manualClock();
  const app = await startApp(
    {
      secret: SECRET,
      tokenDuration: '10m',
      clock,
      providers: [{ kind: 'direct', name: 'direct', checker: () => true }],
    },
    (router, auth) => {
      router.get('/read', async (ctx) => {
        try {
          const rt = await auth.tokens.get(ctx);
          ctx.body = {
            source: rt?.source ?? null,
            name: rt?.claims.user?.name ?? null,
            aud: rt?.claims.user?.aud ?? null,
          };
          // A caller that edits what it was handed: the next read of the same token must not see it.
          if (rt?.claims.user) rt.claims.user.name = 'edited';
        } catch (err) {
          ctx.status = (err as AuthError).status;
          ctx.body = { code: (err as AuthError).code };
        }
      });
    },
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch('/auth/direct/login?user=reader&passwd=x')).status, 200);
  const jwt = c.jar.get('JWT')!;
  const read = async (headers: Record<string, string>, path = '/read') =>
    (await fetch(app.url + path, { headers })).json();

  t.deepEqual(await read({}), { source: null, name: null, aud: null });
  t.deepEqual(await read({ cookie: `JWT=${jwt}`, 'x-xsrf-token': c.jar.get('XSRF-TOKEN')! }), {
    source: 'cookie',
    name: 'reader',
    aud: '',
  });
  t.deepEqual(await read({ 'x-jwt': jwt }), { source: 'header', name: 'reader', aud: '' });
  t.deepEqual(await read({}, `/read?token=${jwt}`), { source: 'query', name: 'reader', aud: '' });
  // The same token, read again after each caller edited its copy.
  t.deepEqual(await read({ 'x-jwt': jwt }), { source: 'header', name: 'reader', aud: '' });
  // A cookie without its XSRF header, and a header token past its exp, are refused.
  t.deepEqual(await read({ cookie: `JWT=${jwt}` }), { code: 'xsrf_mismatch' });
  clock.advance(11 * 60_000);
  t.deepEqual(await read({ 'x-jwt': jwt }), { code: 'token_expired' });
});
