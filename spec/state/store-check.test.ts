/**
 * Stores that are down at start-up are loud: `auth.ready` checks each configured store (`stateStore`,
 * `mfa.store`, `avatarStore`, a passkey provider's `credentials`, Telegram's `stateStore`) within
 * `storeCheckTimeout` and rejects naming the option, the URI (password redacted) and the cause. An app
 * that starts anyway (`startWithStoresDown`) hears of every failure through Koa's `app.emit('error')`
 * and recovers when the store is back. Real peers: a port nothing listens on, redis-server and
 * PostgreSQL started and then stopped, and a redis-server that hangs.
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { Client, startApp } from '../helpers/http.js';
import { startPostgres } from '../helpers/postgres.js';
import { startRedis } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';
import { freePort } from '../helpers/ports.js';

const SECRET = 'store-check-test-secret-0123456789abcdef';
const DIRECT = { kind: 'direct', name: 'local', checker: (_u: string, pw: string) => pw === 'pw' } as const;
const quiet = () => {};

/** authKoa() with the bound under test; the instance is closed at teardown. */
function instance(t: { teardown(fn: () => unknown): void }, more: Partial<AuthKoaOptions>) {
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: quiet,
    storeCheckTimeout: '2s',
    providers: [DIRECT],
    ...more,
  } as AuthKoaOptions);
  t.teardown(() => auth.close());
  return auth;
}

/** Each configured store, by the option that names it: the options that put `uri` there. */
const PLACES: Array<[what: string, options: (uri: string) => Partial<AuthKoaOptions>, named: string]> = [
  ['stateStore', (uri) => ({ stateStore: uri }), 'stateStore'],
  ['mfa.store', (uri) => ({ mfa: { store: uri } }), 'mfa.store'],
  [
    "a passkey provider's credentials",
    (uri) => ({ providers: [DIRECT, { kind: 'passkey', rpName: 'x', credentials: uri }] }),
    'providers\\[1\\] \\(passkey\\): credentials',
  ],
  [
    "Telegram's stateStore",
    (uri) => ({ providers: [DIRECT, { kind: 'telegram', token: '1:x', bot: 'b', poll: false, stateStore: uri }] }),
    'providers\\[1\\] \\(telegram\\): stateStore',
  ],
];

for (const [what, options, named] of PLACES) {
  test(`${what} on a redis:// port nothing listens on: ready rejects naming the option, the redacted URI and the refusal`, async (t) => {
    const port = await freePort();
    const auth = instance(t, options(`redis://:hunter2@127.0.0.1:${port}/0`));
    const err = await t.throwsAsync(auth.ready);
    t.is(err!.name, 'StoreUnreachableError');
    t.regex(
      err!.message,
      new RegExp(
        `^authKoa: ${named} redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0: cannot connect: connection refused \\(ECONNREFUSED\\)$`,
      ),
    );
    t.false(err!.message.includes('hunter2'));
  });
}

test('avatarStore and stateStore on a postgres:// port nothing listens on: ready rejects naming each', async (t) => {
  const port = await freePort();
  const uri = `postgres://authkoa:hunter2@127.0.0.1:${port}/authkoa`;
  for (const option of ['avatarStore', 'stateStore'] as const) {
    const err = await t.throwsAsync(instance(t, { [option]: uri }).ready);
    t.is(
      err!.message,
      `authKoa: ${option} postgres://authkoa:***@127.0.0.1:${port}/authkoa: cannot connect: connection refused (ECONNREFUSED)`,
    );
  }
});

test('redis-server and PostgreSQL started, then stopped: ready rejects naming each URI', async (t) => {
  const redis = await startRedis();
  const postgres = await startPostgres();
  t.teardown(() => postgres.destroy());
  await Promise.all([redis.stop(), postgres.stop()]);
  const onRedis = await t.throwsAsync(instance(t, { stateStore: `${redis.uri}/0` }).ready);
  t.is(onRedis!.message, `authKoa: stateStore ${redis.uri}/0: cannot connect: connection refused (ECONNREFUSED)`);
  const onPostgres = await t.throwsAsync(instance(t, { stateStore: 'memory://', avatarStore: postgres.uri }).ready);
  t.is(onPostgres!.message, `authKoa: avatarStore ${postgres.uri}: cannot connect: connection refused (ECONNREFUSED)`);
});

test('a redis-server that accepts the connection and answers nothing: ready rejects once storeCheckTimeout is over, "no answer within" it', async (t) => {
  const redis = await startRedis();
  t.teardown(async () => {
    redis.resume();
    await redis.stop();
  });
  redis.pause();
  // The URI's own command timeout is far longer: only the start-up bound can end the wait.
  const err = await t.throwsAsync(
    instance(t, { stateStore: `${redis.uri}/0?timeout=60000`, storeCheckTimeout: 300 }).ready,
  );
  t.is(err!.message, `authKoa: stateStore ${redis.uri}/0?timeout=60000: cannot connect: no answer within 300 ms`);
  redis.resume(); // the attempt still under way then connects, and close() (at teardown) closes it
});

test('the message says what happened: a closed port is "connection refused", with no "within"; a socket that never answers is "no answer within" the bound', async (t) => {
  const closed = await freePort();
  const refused = await t.throwsAsync(instance(t, { stateStore: `redis://127.0.0.1:${closed}/0` }).ready);
  t.is(
    refused!.message,
    `authKoa: stateStore redis://127.0.0.1:${closed}/0: cannot connect: connection refused (ECONNREFUSED)`,
  );
  t.false(refused!.message.includes('within'), 'a refusal is not a timeout');

  // Accepts the connection and never says a word: only the start-up bound (300 ms, below the store's own 2 s) ends the wait.
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const port = (silent.address() as { port: number }).port;
  const uri = `redis://127.0.0.1:${port}/0?timeout=2000`;
  const timedOut = await t.throwsAsync(instance(t, { stateStore: uri, storeCheckTimeout: 300 }).ready);
  t.is(timedOut!.message, `authKoa: stateStore ${uri}: cannot connect: no answer within 300 ms`);
});

test('a path store that cannot open (a file where the LMDB folder should be): ready rejects with "cannot open" and the cause', async (t) => {
  const path = join(tempDir(t), 'avatars');
  writeFileSync(path, 'not a folder');
  const err = await t.throwsAsync(instance(t, { avatarStore: `lmdb://${path}` }).ready);
  t.regex(err!.message, new RegExp(`^authKoa: avatarStore lmdb://${path}: cannot open: .*Not a directory.*$`));
});

test('a store that answers within the bound starts as before; memory and lmdb are checked too', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  await t.notThrowsAsync(
    instance(t, { stateStore: `${redis.uri}/0`, avatarStore: `lmdb://${join(tempDir(t), 'avatars')}` }).ready,
  );
});

test('startWithStoresDown: ready resolves, the failure is logged and reaches app.emit("error") with the first request, a login meeting the store emits too, and the app recovers when Redis is back', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  await redis.stop();
  const logs: string[] = [];
  const app = await startApp({
    secret: SECRET,
    stateStore: `${redis.uri}/0`,
    storeCheckTimeout: '2s',
    startWithStoresDown: true,
    logger: { info: quiet, warn: (m: string) => logs.push(`warn ${m}`), error: (m: string) => logs.push(`error ${m}`) },
    providers: [DIRECT],
  });
  t.teardown(() => app.close());
  const emitted: Error[] = [];
  app.app.on('error', (err: Error) => emitted.push(err));
  const said = `authKoa: stateStore ${redis.uri}/0: cannot connect: connection refused (ECONNREFUSED)`;
  t.deepEqual(logs, [`error ${said}; started anyway (startWithStoresDown), tried again on first use`]);
  t.deepEqual(emitted, [], 'no request yet: the app is not known');

  const c = new Client(app.url);
  t.is((await c.fetch('/open')).status, 201, 'a request outside the auth routes goes on');
  t.deepEqual(
    emitted.map((e) => [e.name, e.message]),
    [['StoreUnreachableError', said]],
  );

  const down = await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'alice', passwd: 'pw' } });
  t.is(down.status, 503);
  t.deepEqual(await down.json(), { error: 'login state is unavailable', code: 'state_store_unavailable' });
  t.is(emitted.length, 2, 'the login that met the store is emitted as well');
  t.regex(emitted[1]!.message, /^redis redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable/);

  await redis.start();
  const deadline = Date.now() + 45_000; // waiting on the reconnect, not on a clock
  let res = await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'alice', passwd: 'pw' } });
  while (res.status === 503 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    res = await c.fetch('/auth/local/login', { method: 'POST', json: { user: 'alice', passwd: 'pw' } });
  }
  t.is(res.status, 200);
  t.true(c.jar.has('JWT'));
});

test('storeCheckTimeout and startWithStoresDown are checked like every option', (t) => {
  const base = { secret: SECRET, url: 'http://127.0.0.1:1', logger: quiet, providers: [DIRECT] } as AuthKoaOptions;
  t.throws(() => authKoa({ ...base, storeCheckTimeout: 0 }), {
    instanceOf: TypeError,
    message: /^authKoa: storeCheckTimeout must be a positive number/,
  });
  t.throws(() => authKoa({ ...base, startWithStoresDown: 'yes' as never }), {
    instanceOf: TypeError,
    message: 'authKoa: startWithStoresDown must be a boolean',
  });
  t.throws(() => authKoa({ ...base, startWithStoreDown: true } as never), {
    instanceOf: TypeError,
    message: /unknown option "startWithStoreDown" \(did you mean "startWithStoresDown"\?\)/,
  });
});
