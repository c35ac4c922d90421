/**
 * A feature written outside the package (accept-terms.ts, public entry only) can do what a built-in one
 * does: take its own options (a misspelled one refused with the closest name), serve a route under the
 * prefix it reserves (a provider or another feature on it is a start-up error naming both), stop a login
 * with its own error code at the status it declared, tell its own event, describe itself in
 * `auth.openapi()`, offer an admin API, and be closed with the instance.
 */
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authKoa, type AuthKoaOptions, type FeatureModule } from '../../lib/index.js';
import { Client, quiet, startApp } from '../helpers/http.js';
import { privateImports } from '../helpers/imports.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import { acceptTerms, type TermsAcceptedEvent, type TermsAdmin } from './accept-terms.js';

const SECRET = 'accept-terms-feature-secret-0123456789abcdef';
const here = import.meta.dirname;

/** An app with a `direct` provider `local` (any user, password "pw") and the terms feature at version 2. */
async function rig(t: ExecutionContext, extra: Partial<AuthKoaOptions> = {}) {
  const options = {
    secret: SECRET,
    features: [acceptTerms({ version: '2', text: 'Be nice.' })],
    providers: [{ kind: 'direct', name: 'local', checker: (_user: string, passwd: string) => passwd === 'pw' }],
    ...extra,
  } as AuthKoaOptions;
  const app = await startApp(options);
  t.teardown(() => app.close());
  const events: TermsAcceptedEvent[] = [];
  app.auth.on('terms_accepted', (e) => void events.push(e));
  const login = (client: Client, query = '') =>
    client.fetch(`/auth/local/login${query}`, { method: 'POST', form: { user: 'alice', passwd: 'pw' } });
  return { app, events, login };
}

test('GET /auth/terms answers the terms; any other method or path under the prefix is a 404 JSON', async (t) => {
  const { app } = await rig(t);
  const client = new Client(app.url);
  const res = await client.fetch('/auth/terms');
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { version: '2', text: 'Be nice.' });
  const other = await client.fetch('/auth/terms/elsewhere');
  t.is(other.status, 404);
  t.is(((await other.json()) as { code: string }).code, 'not_found');
});

test('a POST to the prefix from another site is refused before the feature sees it', async (t) => {
  const { app } = await rig(t);
  const res = await new Client(app.url).fetch('/auth/terms', {
    method: 'POST',
    headers: { origin: 'https://evil.example' },
  });
  t.is(res.status, 403);
  t.is(((await res.json()) as { code: string }).code, 'origin_mismatch');
});

test('the gate: no session until the terms are accepted (403 terms_required, JSON, no cookie); accepting tells the event once, and is remembered', async (t) => {
  const { app, events, login } = await rig(t);
  const first = new Client(app.url);
  const refused = await login(first);
  t.is(refused.status, 403);
  t.deepEqual(await refused.json(), {
    error: 'accept the terms (version 2) to log in: GET /auth/terms',
    code: 'terms_required',
  });
  t.false(first.jar.has('JWT'), 'no session cookie');
  t.is((await login(first, '?accept_terms=1')).status, 403, 'an old version is not the current one');

  const accepting = await login(first, '?accept_terms=2');
  t.is(accepting.status, 200);
  t.true(first.jar.has('JWT'));
  t.is((await first.fetch('/auth/user', { headers: first.xsrf() })).status, 200, 'the session works');
  await new Promise((resolve) => setImmediate(resolve)); // listeners run after the answer
  t.is(events.length, 1);
  t.like(events[0], { type: 'terms_accepted', version: '2' });
  t.is(
    events[0]!.userId,
    ((await (await first.fetch('/auth/user', { headers: first.xsrf() })).json()) as { id: string }).id,
  );

  const later = await login(new Client(app.url));
  t.is(later.status, 200, 'accepted once, not asked again');
  await new Promise((resolve) => setImmediate(resolve));
  t.is(events.length, 1);
  t.is(await app.auth.features.get<TermsAdmin>('terms')!.acceptedBy(events[0]!.userId), '2');
});

test('a new version asks again: the same user, the same store, version 3', async (t) => {
  const stateStore = memoryStateStore();
  const { app, login } = await rig(t, { stateStore });
  t.is((await login(new Client(app.url), '?accept_terms=2')).status, 200);
  // A second instance on the first one's state store, with the terms moved on.
  const next = await startApp({
    secret: SECRET,
    stateStore,
    features: [acceptTerms({ version: '3' })],
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  t.teardown(() => next.close());
  const res = await new Client(next.url).fetch('/auth/local/login', {
    method: 'POST',
    form: { user: 'alice', passwd: 'pw' },
  });
  t.is(res.status, 403);
  t.is(((await res.json()) as { code: string }).code, 'terms_required');
});

test('the document: its path, its schema, its tag, its code in the ErrorCode enum; auth.features lists it before the built-in ones', async (t) => {
  const { app } = await rig(t);
  type Doc = {
    tags: Array<{ name: string; description: string }>;
    paths: Record<string, Record<string, { security?: unknown[]; operationId?: string }>>;
    components: { schemas: Record<string, { properties?: { code?: { enum?: string[] } } }> };
  };
  const doc = (await app.auth.openapi()) as unknown as Doc;
  const op = doc.paths['/auth/terms']?.get;
  t.truthy(op);
  t.deepEqual(op!.security, [], 'public, as it did not say otherwise');
  t.is(op!.operationId, 'getTerms');
  t.truthy(doc.components.schemas.Terms);
  t.deepEqual(
    doc.tags.find((tag) => tag.name === 'terms'),
    { name: 'terms', description: 'Accepting the terms of service' },
  );
  t.true(doc.components.schemas.Error!.properties!.code!.enum!.includes('terms_required'));
  t.deepEqual(app.auth.features.list(), ['terms', 'sessions', 'jwks']);
});

test('its options are checked in the one validation pass: a misspelled one names the closest', (t) => {
  const typo = { ...acceptTerms({ version: '2' }), options: { verison: '2' } } as unknown as FeatureModule;
  const err = t.throws(() =>
    authKoa({
      secret: SECRET,
      url: 'http://127.0.0.1:1',
      logger: quiet,
      features: [typo],
      providers: [{ kind: 'direct', name: 'local', checker: () => true }],
    }),
  );
  t.regex(err!.message, /^authKoa: features\[0\] \(terms\): unknown option "verison" \(did you mean "version"\?\)/);
});

test('a bad value is a start-up error naming the feature', async (t) => {
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: quiet,
    features: [acceptTerms({ version: '' })],
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
  });
  const err = await t.throwsAsync(auth.ready);
  t.is(err!.message, 'authKoa: feature "terms" could not be created: version must be a non-empty string');
  await auth.close();
});

test('the prefix is its own: a provider named "terms", another feature on /terms, a feature on a core route are refused naming both', async (t) => {
  const base = { secret: SECRET, url: 'http://127.0.0.1:1', logger: quiet };
  const auth = authKoa({
    ...base,
    features: [acceptTerms({ version: '2' })],
    providers: [{ kind: 'direct', name: 'terms', checker: () => true }],
  });
  const err = await t.throwsAsync(auth.ready);
  t.is(
    err!.message,
    'authKoa: providers: provider "terms" and feature "terms" both want <authRoutePath>/terms/…: rename the provider',
  );
  await auth.close();

  const twin: FeatureModule = { name: 'legal', prefix: '/terms', create: () => ({}) };
  const providers = [{ kind: 'direct' as const, name: 'local', checker: () => true }];
  t.throws(() => authKoa({ ...base, features: [acceptTerms({ version: '2' }), twin], providers }), {
    message: 'authKoa: features: features "terms" and "legal" both reserve <authRoutePath>/terms',
  });
  const onCore: FeatureModule = { name: 'me', prefix: '/user', create: () => ({}) };
  t.throws(() => authKoa({ ...base, features: [onCore], providers }), {
    message: /feature "me" cannot take \/user: it is a route of the auth router itself/,
  });
  // A built-in one's prefix too: the session list's.
  const sessions: FeatureModule = { name: 'devices', prefix: '/sessions', create: () => ({}) };
  t.throws(() => authKoa({ ...base, features: [sessions], providers }), {
    message: 'authKoa: features: features "devices" and "sessions" both reserve <authRoutePath>/sessions',
  });
});

test("its event is one auth.on() takes (a misspelled one is a TypeError with the closest); its codes and events cannot be authkoa's own", (t) => {
  const providers = [{ kind: 'direct' as const, name: 'local', checker: () => true }];
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: quiet,
    features: [acceptTerms({ version: '2' })],
    providers,
  });
  t.teardown(() => auth.close());
  t.notThrows(() => auth.on('terms_accepted', () => {}));
  t.throws(() => auth.on('terms_acepted' as never, () => {}), {
    message: /unknown event type "terms_acepted" \(did you mean "terms_accepted"\?\)/,
  });
  const stealsCode: FeatureModule = { name: 'x', errors: { no_token: 401 }, create: () => ({}) };
  t.throws(
    () => authKoa({ secret: SECRET, url: 'http://127.0.0.1:1', logger: quiet, features: [stealsCode], providers }),
    { message: /error code "no_token" must be .* not one of authkoa's ERROR_CODES/ },
  );
  const stealsEvent: FeatureModule = { name: 'y', events: ['login'], create: () => ({}) };
  t.throws(
    () => authKoa({ secret: SECRET, url: 'http://127.0.0.1:1', logger: quiet, features: [stealsEvent], providers }),
    { message: /event type "login" must be .* not one of authkoa's own/ },
  );
});

test('the feature imports nothing from lib/ but lib/index.js', (t) => {
  const fixture = readFileSync(join(here, 'accept-terms.ts'), 'utf8');
  t.regex(fixture, /from '\.\.\/\.\.\/lib\/index\.js'/, 'the feature does import the public entry');
  t.deepEqual(privateImports(fixture, here), []);
});
