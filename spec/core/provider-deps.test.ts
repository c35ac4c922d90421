/** What a provider written outside the package is handed: the login context and what it asks for, never the secrets. */
import test from 'ava';
import {
  authKoa,
  registerProvider,
  type AuthError,
  type ProviderCapability,
  type ProviderDeps,
  type ProviderDepsWith,
} from '../../lib/index.js';
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

/** Registers a kind that keeps the deps its one provider was created with. */
function probeKind(kind: string, needs?: readonly ProviderCapability[]): { given?: ProviderDeps } {
  const seen: { given?: ProviderDeps } = {};
  registerProvider({
    kind,
    needs,
    create(opts, deps) {
      seen.given = deps;
      return { name: String(opts.name), async login() {}, async logout() {} };
    },
  });
  return seen;
}

/** The login context every provider gets, by name. */
const LOGIN_CONTEXT = [
  'callbackURL',
  'clock',
  'completeLogin',
  'cookies',
  'endSession',
  'events',
  'limiter',
  'logger',
  'routeURL',
  'safeRedirect',
  'stateStore',
  'tokenService',
  'tracing',
  'url',
  'userId',
];

/** Every capability a kind may name in `needs`. */
/** Every capability: a record, so that one added to ProviderCapabilities and not here is a type error. */
const EVERY_CAPABILITY: Record<ProviderCapability, true> = {
  avatarProxy: true,
  checkCredentials: true,
  connections: true,
  factorChanged: true,
  featureService: true,
  loginSession: true,
  sessionUser: true,
  signer: true,
  stores: true,
  throttle: true,
};
const CAPABILITIES = Object.keys(EVERY_CAPABILITY) as ProviderCapability[];

test('a third-party provider gets the login context (token service, state store, limiter, logger, url, clock, session ends) and no secret is reachable from it', async (t) => {
  const probe = probeKind('deps-probe');
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
  const given = probe.given!;
  t.deepEqual(Object.keys(given).sort(), LOGIN_CONTEXT);
  // The shared state works for it, and is the service's (a second provider would see the same entries).
  t.true(await given.stateStore.create('probe', 'k', { n: 1 }, clock() + 60_000));
  t.false(await given.stateStore.create('probe', 'k', { n: 2 }, clock() + 60_000));
  t.is(await given.limiter.hit([{ key: 'probe:x', limit: 1 }], 60_000), undefined);
  t.is(await given.limiter.hit([{ key: 'probe:x', limit: 1 }], 60_000), 60_000);
  t.is(given.clock, clock);
  t.is(given.routeURL('probe', 'webhook'), 'http://127.0.0.1:1/auth/probe/webhook');
  t.deepEqual(given.cookies, { name: 'JWT', secure: false });
  const strings = reachableStrings(given);
  t.true(strings.includes('http://127.0.0.1:1'), 'the walk does reach the context');
  t.false(
    strings.some((s) => s.includes(SECRET) || s.includes(OLD_SECRET)),
    'a secret is reachable from the provider context',
  );
  // The token service works for the provider all the same.
  const token = await given.tokenService.create({ user: { name: 'p', id: 'probe_1', picture: '' } });
  t.regex(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
});

test('a kind gets the capabilities it names in needs and no other; every capability together still reaches no secret', async (t) => {
  const some = probeKind('deps-probe-some', ['signer', 'stores']);
  const all = probeKind('deps-probe-all', CAPABILITIES);
  const auth = authKoa({
    secret: SECRET,
    previousSecrets: [OLD_SECRET],
    url: 'http://127.0.0.1:1',
    providers: [
      { kind: 'deps-probe-some', name: 'some' },
      { kind: 'deps-probe-all', name: 'all' },
    ] as import('../../lib/index.js').ProviderEntry[],
  });
  await auth.ready;
  t.teardown(() => auth.close());
  t.deepEqual(Object.keys(some.given!).sort(), [...LOGIN_CONTEXT, 'signer', 'stores'].sort());
  t.deepEqual(Object.keys(all.given!).sort(), [...LOGIN_CONTEXT, ...CAPABILITIES].sort());
  // The store policy names the entry, for what start-up says of a provider's own store.
  const { stores } = some.given as ProviderDepsWith<'stores'>;
  t.is(stores.place, 'providers[0] (deps-probe-some): ');
  t.false(
    reachableStrings(all.given).some((s) => s.includes(SECRET) || s.includes(OLD_SECRET)),
    'a secret is reachable from the capabilities',
  );
});

test('a kind naming an unknown capability fails start-up, naming the entry and the known ones', async (t) => {
  probeKind('deps-probe-unknown', ['options' as ProviderCapability]);
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: () => {},
    providers: [{ kind: 'deps-probe-unknown', name: 'u' } as import('../../lib/index.js').ProviderEntry],
  });
  t.teardown(() => auth.close());
  await t.throwsAsync(auth.ready, {
    message:
      'authKoa: providers[0] (deps-probe-unknown): needs names "options", which is not a provider capability ' +
      '(known: checkCredentials, throttle, signer, sessionUser, loginSession, factorChanged, avatarProxy, ' +
      'connections, stores, featureService)',
  });
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
