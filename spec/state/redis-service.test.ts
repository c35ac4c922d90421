/**
 * The service-wide `stateStore: 'redis://…'` against a real redis-server: what reaches Redis, and what
 * an application sees when Redis is away at start-up, goes away mid-run, hangs, or refuses the URI's
 * credentials. (Several processes on one Redis: two-process.test.ts.)
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { emailApp as sharedEmailApp } from './email-app.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { until } from '../helpers/until.js';

const SECRET = 'redis-service-test-secret-0123456789';

const emailApp = (t: ExecutionContext, stateStore: string, more: Partial<AuthKoaOptions> = {}) =>
  sharedEmailApp(t, SECRET, stateStore, more);

const prefix = () => `t${randomBytes(5).toString('hex')}:`;

let shared: RedisPeer;
test.before(async () => {
  shared = await startRedis();
});
test.after.always(() => shared?.stop());

test('a confirmation token is spent in Redis and rate-limit counters and the session list live there, under the prefix', async (t) => {
  const p = prefix();
  const e = await emailApp(t, `${shared.uri}/0?prefix=${p}`);
  const { res, token } = await e.request();
  t.is(res.status, 200);
  t.is((await e.confirm(token!)).status, 200);
  t.is((await e.confirm(token!)).status, 403, 'spent');
  const raw = new Redis(shared.port, '127.0.0.1');
  t.teardown(() => raw.quit());
  const keys = (await raw.keys(`${p}*`)).sort();
  t.is(keys.length, 4, keys.join(' '));
  t.true(
    keys.some((k) => k.startsWith(`${p}used:verified:email:`)),
    'the spent token id',
  );
  t.true(
    keys.some((k) => k.startsWith(`${p}sessions:d:email_`)),
    "the user's session list",
  );
  t.true(keys.includes(`${p}limit:verified:email:a:a@example.com`), 'the per-address counter');
  t.true(
    keys.some((k) => k.startsWith(`${p}limit:verified:email:i:`)),
    'the per-IP counter',
  );
  t.is(await raw.hget(`${p}limit:verified:email:a:a@example.com`, 'v'), '1');
});

test('Redis down at start-up, started anyway (startWithStoresDown): ready resolves, logins answer 503 JSON with the cause logged, and work once Redis is up', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  await redis.stop();
  const e = await emailApp(t, `${redis.uri}/0`, { startWithStoresDown: true });
  t.true(
    e.logs.some((l) =>
      /^error authKoa: stateStore redis:\/\/127\.0\.0\.1:\d+\/0: cannot connect: connection refused \(ECONNREFUSED\); started anyway/.test(
        l,
      ),
    ),
    e.logs.join('\n'),
  );
  const down = await e.request();
  t.is(down.res.status, 503);
  t.deepEqual(await down.res.json(), { error: 'login state is unavailable', code: 'state_store_unavailable' });
  t.is(down.token, undefined, 'nothing was sent');
  t.true(
    e.logs.some((l) =>
      /^error .*login state is unavailable: redis redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable \(.*ECONNREFUSED/.test(
        l,
      ),
    ),
    e.logs.join('\n'),
  );

  await redis.start();
  await until(async () => (await e.request()).res.status === 200, 'Redis to be picked up');
  const { token } = await e.request('b@example.com');
  t.is((await e.confirm(token!)).status, 200);
});

test('Redis stopped mid-run: requests fail at once with 503 (nothing queued), and the app recovers when it restarts', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const e = await emailApp(t, `${redis.uri}/0`);
  const first = await e.request();
  t.is(first.res.status, 200);

  await redis.stop();
  const results = await Promise.all(Array.from({ length: 20 }, () => e.confirm(first.token!)));
  t.deepEqual(
    results.map((r) => r.status),
    Array(20).fill(503),
  );
  t.deepEqual(e.client.jar.size, 0, 'no session was issued');

  await redis.start(); // empty: what an unpersisted Redis keeps over a restart
  await until(async () => (await e.confirm(first.token!)).status !== 503, 'the reconnect');
  t.is(e.client.jar.has('JWT'), true, 'the token was spent once Redis was back');
  t.is((await e.confirm(first.token!)).status, 403, 'and only once');
});

test('a Redis that hangs: requests end with 503 after the command timeout, not a hung request', async (t) => {
  const redis = await startRedis();
  t.teardown(async () => {
    redis.resume();
    await redis.stop();
  });
  // The command timeout also bounds every command of the good requests around the hang: 300 ms is within
  // a loaded machine's reach for those. The hang pays it once.
  const e = await emailApp(t, `${redis.uri}/0?timeout=2000`);
  t.is((await e.request()).res.status, 200);
  redis.pause();
  const res = (await e.request('c@example.com')).res;
  t.is(res.status, 503);
  t.is(((await res.json()) as { code: string }).code, 'state_store_unavailable');
  t.true(
    e.logs.some((l) => /hit failed: Command timed out/.test(l)),
    e.logs.join('\n'),
  );
  redis.resume();
  await until(async () => (await e.request('d@example.com')).res.status === 200, 'the server to answer again');
});

test('a refused password or database fails start-up naming the URI, the password redacted', async (t) => {
  const redis = await startRedis({ password: 'right-horse-battery' });
  t.teardown(() => redis.stop());
  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: () => {},
    providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
    // The server's refusal is the subject, not the bound: on a loaded machine the default 3 s is too short.
    storeCheckTimeout: '30s',
  };
  const port = redis.port;
  const cases = {
    wrongPassword: `redis://:hunter2@127.0.0.1:${port}/0`,
    noPassword: `redis://127.0.0.1:${port}/0`,
    wrongDb: `redis://:right-horse-battery@127.0.0.1:${port}/99`,
  };
  const errors: Record<string, string> = {};
  for (const [name, uri] of Object.entries(cases)) {
    const auth = authKoa({ ...base, stateStore: uri });
    errors[name] = await auth.ready.then(
      () => 'started',
      (err: Error) => err.message,
    );
    await auth.close();
  }
  t.regex(
    errors.wrongPassword!,
    new RegExp(`^authKoa: stateStore redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0: WRONGPASS`),
  );
  t.regex(errors.noPassword!, /^authKoa: stateStore redis:\/\/127\.0\.0\.1:\d+\/0: NOAUTH/);
  t.regex(errors.wrongDb!, /^authKoa: stateStore redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/99: ERR DB index is out of range/);
  for (const m of Object.values(errors)) t.false(m.includes('hunter2') || m.includes('right-horse'), m);

  const ok = authKoa({ ...base, stateStore: `redis://:right-horse-battery@127.0.0.1:${port}/1` });
  t.teardown(() => ok.close());
  await t.notThrowsAsync(ok.ready, 'the right password and database start');
});

test('a bad stateStore option is a TypeError naming it: from authKoa(), or at start-up for what the backend checks', async (t) => {
  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: () => {},
    providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
  };
  t.throws(() => authKoa({ ...base, stateStore: 'etcd://h' }), {
    instanceOf: TypeError,
    message: /^authKoa: stateStore has unsupported scheme "etcd:\/\/"/,
  });
  t.throws(() => authKoa({ ...base, stateStore: {} as never }), {
    instanceOf: TypeError,
    message: /^authKoa: stateStore must be/,
  });
  const auth = authKoa({ ...base, stateStore: 'redis://:hunter2@h/0?ttl=1' });
  const err = await t.throwsAsync(auth.ready, {
    instanceOf: TypeError,
    message: /^authKoa: stateStore redis:\/\/:\*\*\*@h\/0\?ttl=1: unknown parameter "ttl"/,
  });
  t.false(err!.message.includes('hunter2'));
});
