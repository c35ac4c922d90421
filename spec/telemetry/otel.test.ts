/**
 * OpenTelemetry through the real SDK: a BasicTracerProvider with an in-memory span exporter and a
 * MeterProvider whose reader the test collects, registered as the global providers of this test
 * process (ava runs each file in its own process), with the async-hooks context manager so spans nest.
 * The tests run one at a time: they share the exporter. A login, a refusal, a refresh and an OAuth2 login through the dev server (token and user-info calls)
 * are seen as spans and metrics, and no attribute carries a password, token or secret.
 */
import test from 'ava';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  BasicTracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
} from '@opentelemetry/sdk-metrics';
import { authKoa } from '../../lib/index.js';
import { Client, manualClock, startApp } from '../helpers/http.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { tamperedSignature } from '../helpers/tamper.js';

const SECRET = 'otel-test-secret-0123456789abcdefghij';
const PASSWORD = 'alice-secret-password';

const spans = new InMemorySpanExporter();
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
  exportIntervalMillis: 3_600_000,
});
test.before(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
});
test.beforeEach(() => spans.reset());

/** The data points of metric `name` as collected now. */
async function points(name: string): Promise<Array<DataPoint<unknown>>> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as Array<DataPoint<unknown>>);
}

/** The value of the counter `name` at the point whose attributes include `attrs`. */
async function count(name: string, attrs: Record<string, unknown>): Promise<number> {
  const p = (await points(name)).filter((d) => Object.entries(attrs).every(([k, v]) => d.attributes[k] === v));
  return p.reduce((sum, d) => sum + (d.value as number), 0);
}

const named = (name: string) => spans.getFinishedSpans().filter((s) => s.name === name);

/** Resolves once `done` holds: event listeners (where the login counters come from) run after the answer. */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 200 && !(await done()); i++) await new Promise((r) => setImmediate(r));
}

async function directApp(extra: Record<string, unknown> = {}) {
  return startApp({
    secret: SECRET,
    telemetry: true,
    providers: [{ kind: 'direct', name: 'local', checker: (_u: string, p: string) => p === PASSWORD }],
    ...extra,
  });
}

test.serial(
  'a direct login: an authkoa.login span with provider and kind, state-store spans inside it, the logins counter by provider and kind',
  async (t) => {
    const app = await directApp();
    t.teardown(() => app.close());
    const before = await count('authkoa.logins', { provider: 'local', kind: 'direct' });
    const res = await new Client(app.url).fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
    t.is(res.status, 200);
    const [login] = named('authkoa.login');
    t.truthy(
      login,
      spans
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', '),
    );
    t.like(login!.attributes, { 'authkoa.provider': 'local', 'authkoa.kind': 'direct' });
    t.is(login!.status.code, 0, 'unset: the login succeeded');
    const store = spans.getFinishedSpans().filter((s) => s.name.startsWith('authkoa.state_store.'));
    t.true(store.length > 0, 'the throttle and the session list went through the state store');
    for (const s of store)
      t.is(s.parentSpanContext?.spanId, login!.spanContext().spanId, `${s.name} is a child of the login span`);
    await until(async () => (await count('authkoa.logins', { provider: 'local', kind: 'direct' })) === before + 1);
    t.is(await count('authkoa.logins', { provider: 'local', kind: 'direct' }), before + 1);
    t.true(
      (await points('authkoa.state_store.duration')).some(
        (d) => d.attributes.operation === 'get' && d.attributes.outcome === 'ok',
      ),
    );
  },
);

test.serial(
  'a refused login: the span carries the answered code and is not an error; the failures counter counts it by reason',
  async (t) => {
    const app = await directApp();
    t.teardown(() => app.close());
    const before = await count('authkoa.login.failures', { provider: 'local', reason: 'bad_credentials' });
    const res = await new Client(app.url).fetch('/auth/local/login?user=alice&passwd=wrong');
    t.is(res.status, 403);
    const [login] = named('authkoa.login');
    t.like(login!.attributes, { 'authkoa.error.code': 'bad_credentials', 'authkoa.error.status': 403 });
    t.is(login!.status.code, 0, 'a 4xx refusal is the flow working, not a fault');
    await until(
      async () =>
        (await count('authkoa.login.failures', { provider: 'local', reason: 'bad_credentials' })) === before + 1,
    );
    t.is(
      await count('authkoa.login.failures', { provider: 'local', kind: 'direct', reason: 'bad_credentials' }),
      before + 1,
    );
  },
);

test.serial(
  'token verification: one span per check with the cache hit as an attribute; the verifications counter by cache hit',
  async (t) => {
    const app = await directApp();
    t.teardown(() => app.close());
    const c = new Client(app.url);
    await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
    spans.reset();
    const hitsBefore = await count('authkoa.token.verifications', {
      'authkoa.token.cache_hit': true,
      outcome: 'accepted',
    });
    for (let i = 0; i < 3; i++) t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
    const checks = named('authkoa.token.verify');
    t.is(checks.length, 3);
    // The first check verifies the signature and caches the token; the next two are cache hits.
    t.deepEqual(
      checks.map((s) => [
        s.attributes['authkoa.token.cache_hit'],
        s.attributes['authkoa.token.source'],
        s.attributes.outcome,
      ]),
      [
        [false, 'cookie', 'accepted'],
        [true, 'cookie', 'accepted'],
        [true, 'cookie', 'accepted'],
      ],
    );
    t.is(
      await count('authkoa.token.verifications', { 'authkoa.token.cache_hit': true, outcome: 'accepted' }),
      hitsBefore + 2,
    );
    const bad = await fetch(`${app.url}/auth/user`, { headers: { 'X-JWT': tamperedSignature(c.jar.get('JWT')!) } });
    t.is(bad.status, 401);
    t.true(
      named('authkoa.token.verify').some(
        (s) => s.attributes['authkoa.token.cache_hit'] === false && s.attributes.outcome === 'refused',
      ),
    );
  },
);

test.serial('a refresh: an authkoa.refresh span and the refreshes counter', async (t) => {
  const clock = manualClock(Date.now());
  const app = await directApp({ clock, tokenDuration: '1m' });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
  const before = await count('authkoa.refreshes', { provider: 'local' });
  clock.advance(120_000);
  spans.reset();
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
  const [refresh] = named('authkoa.refresh');
  t.truthy(
    refresh,
    spans
      .getFinishedSpans()
      .map((s) => s.name)
      .join(', '),
  );
  t.is(refresh!.attributes['authkoa.provider'], 'local');
  await until(async () => (await count('authkoa.refreshes', { provider: 'local' })) === before + 1);
  t.is(await count('authkoa.refreshes', { provider: 'local' }), before + 1);
});

test.serial(
  'an OAuth2 login through the dev server: client spans for the token and user-info calls inside the callback span, by the HTTP semantic conventions',
  async (t) => {
    const app = await startApp({ secret: SECRET, telemetry: true, providers: [{ kind: 'dev', port: 0 }] });
    t.teardown(() => app.close());
    const c = new Client(app.url);
    const authorize = await startLogin(c, 'dev');
    const callback = await devAuthorize(authorize, 'alice');
    spans.reset();
    t.is((await c.fetch(callback)).status, 200);
    const [cb] = named('authkoa.callback');
    t.truthy(
      cb,
      spans
        .getFinishedSpans()
        .map((s) => s.name)
        .join(', '),
    );
    const clients = spans.getFinishedSpans().filter((s) => s.kind === 2 /* CLIENT */);
    const token = clients.find((s) => s.attributes['authkoa.call'] === 'token');
    const info = clients.find((s) => s.attributes['authkoa.call'] === 'user_info');
    t.truthy(token, JSON.stringify(clients.map((s) => s.attributes)));
    t.truthy(info);
    t.is(token!.name, 'POST');
    t.like(token!.attributes, {
      'http.request.method': 'POST',
      'server.address': authorize.hostname,
      'server.port': Number(authorize.port),
    });
    t.is(token!.attributes['url.full'], `${authorize.origin}/login/oauth/access_token`);
    t.like(info!.attributes, { 'http.request.method': 'GET', 'http.response.status_code': 200 });
    for (const s of [token!, info!])
      t.is(
        s.parentSpanContext?.spanId,
        cb!.spanContext().spanId,
        `${s.name} ${s.attributes['authkoa.call']} is inside the callback span`,
      );
    t.true((await points('http.client.request.duration')).some((d) => d.attributes['authkoa.call'] === 'user_info'));
  },
);

test.serial(
  'a webhook delivery is a client span (authkoa.call webhook, its status) with the request-duration histogram; a refused one is an error span',
  async (t) => {
    const { startReceiver } = await import('../webhooks/receiver.js');
    const r = await startReceiver();
    t.teardown(() => r.close());
    const app = await directApp({
      webhooks: [{ url: `${r.url}/in`, secret: r.secret, events: ['login'], allowPrivate: true }],
    });
    t.teardown(() => app.close());
    const c = new Client(app.url);
    await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
    await r.until(1);
    const isWebhook = (s: ReadableSpan) => s.attributes['authkoa.call'] === 'webhook';
    await until(() => spans.getFinishedSpans().some(isWebhook));
    const sent = spans.getFinishedSpans().find(isWebhook)!;
    t.is(sent.name, 'POST');
    t.like(sent.attributes, { 'http.request.method': 'POST', 'http.response.status_code': 200 });
    t.is(sent.attributes['url.full'], `${r.url}/in`);
    t.true((await points('http.client.request.duration')).some((d) => d.attributes['authkoa.call'] === 'webhook'));
    r.status = 500;
    spans.reset();
    await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
    await r.until(2);
    await until(() => spans.getFinishedSpans().some(isWebhook));
    const refused = spans.getFinishedSpans().find(isWebhook)!;
    t.like(refused.attributes, { 'http.response.status_code': 500 });
    t.is(refused.status.code, 2 /* ERROR */);
  },
);

test.serial('no span attribute carries the password, the session token, its jti or the secret', async (t) => {
  const app = await directApp();
  t.teardown(() => app.close());
  const c = new Client(app.url);
  await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`);
  await c.fetch('/auth/user', { headers: c.xsrf() });
  await c.fetch('/auth/local/login?user=alice&passwd=wrong-one');
  const jwt = c.jar.get('JWT')!;
  // The XSRF cookie's value is the token's jti.
  const secrets = [PASSWORD, 'wrong-one', SECRET, jwt, c.jar.get('XSRF-TOKEN')!];
  const all: ReadableSpan[] = spans.getFinishedSpans();
  t.true(all.length > 5);
  const text = JSON.stringify(
    all.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
  );
  for (const s of secrets) t.false(text.includes(s), `a span carries ${s.slice(0, 6)}…`);
});

test.serial('telemetry: false records nothing even with @opentelemetry/api installed', async (t) => {
  const app = await directApp({ telemetry: false });
  t.teardown(() => app.close());
  const c = new Client(app.url);
  t.is((await c.fetch(`/auth/local/login?user=alice&passwd=${PASSWORD}`)).status, 200);
  t.is((await c.fetch('/auth/user', { headers: c.xsrf() })).status, 200);
  t.deepEqual(
    spans.getFinishedSpans().map((s) => s.name),
    [],
  );
});

test.serial('a bad telemetry option is a TypeError naming it', (t) => {
  t.throws(
    () =>
      authKoa({
        secret: SECRET,
        url: 'http://127.0.0.1:1',
        telemetry: 'yes' as never,
        providers: [{ kind: 'direct', name: 'local', checker: () => true }],
      }),
    {
      instanceOf: TypeError,
      message: /^authKoa: telemetry must be true/,
    },
  );
});
