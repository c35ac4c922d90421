/**
 * The PostgreSQL state store against a real server (Debian's postgresql, started by the helper): the
 * shared contract, what the URI's parts do, keys and values the text and json columns must keep exact,
 * sweeping, and the start-up and hang errors. Table creation and `authctl db migrate`:
 * postgres-tables.test.ts; the service on it: postgres-service.test.ts.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openStateStore } from '../../lib/state/index.js';
import { PostgresStateStore, openPostgresStateStore } from '../../lib/state/postgres.js';
import { parsePostgresUri } from '../../lib/postgres/uri.js';
import { ROOT } from '../helpers/cli.js';
import { manualClock } from '../helpers/http.js';
import { rawClient, startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { stateStoreContract } from './state-contract.js';
import { limiterContract } from './limiter-contract.js';
import { freePort } from '../helpers/ports.js';
import { until } from '../helpers/until.js';

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

const tag = () => randomBytes(5).toString('hex');
/** A table prefix of its own for every store, so tests running at once never share rows. */
/**
 * A store URI of a prefix of its own. The connection timeout is the suite's loaded-machine bound, as the other
 * backends' tests use: twenty stores connecting at once to a server started moments before once took more than
 * the default 5 s in a full run (the tests of a timeout set their own).
 */
const fresh = (more = '') => `${server.uri}?prefix=t${tag()}_&timeout=30000${more}`;

/** A plain client for reading what the store wrote, closed with the test. */
const raw = (t: ExecutionContext, uri = server.uri) => rawClient(t, uri);

async function open(
  t: ExecutionContext,
  uri: string,
  opts: Parameters<typeof openPostgresStateStore>[1] = {},
): Promise<PostgresStateStore> {
  const store = await openPostgresStateStore(uri, opts);
  t.teardown(() => store.close());
  return store;
}

stateStoreContract(test, 'postgres', async (clock) => openPostgresStateStore(fresh(), { clock }));
limiterContract(test, 'postgres', async (clock) => openPostgresStateStore(fresh(), { clock }));

test("prefix and schema keep apps apart on one database: the same key is a row in each one's own table", async (t) => {
  const id = tag();
  const schema = `s${tag()}`;
  const client = await raw(t);
  const schemaExists = async () =>
    (await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
  t.false(await schemaExists());
  const a = await open(t, `${server.uri}?prefix=a${id}_&timeout=30000`);
  const b = await open(t, `${server.uri}?prefix=b${id}_&timeout=30000`);
  const c = await open(t, `${server.uri}?schema=${schema}&prefix=a${id}_&timeout=30000`);
  t.true(await schemaExists(), '?schema= created the schema');
  const exp = Date.now() + 60_000;
  t.true(await a.create('ns', 'k', 'A', exp));
  t.true(await b.create('ns', 'k', 'B', exp), 'the same key under another prefix is free');
  t.true(await c.create('ns', 'k', 'C', exp), 'and under the same prefix in another schema');
  t.is((await a.get('ns', 'k'))?.value, 'A');
  t.is((await b.get('ns', 'k'))?.value, 'B');
  t.is((await c.get('ns', 'k'))?.value, 'C');

  const rows = async (table: string) =>
    (await client.query(`SELECT ns, key, value, expires_at::float8 AS exp, rev FROM ${table}`)).rows;
  t.deepEqual(await rows(`"public"."a${id}_state"`), [
    { ns: 'ns', key: 'k', value: 'A', exp, rev: (await a.get('ns', 'k'))!.rev },
  ]);
  t.deepEqual(
    (await rows(`"public"."b${id}_state"`)).map((r) => r.value),
    ['B'],
  );
  t.deepEqual(
    (await rows(`"${schema}"."a${id}_state"`)).map((r) => r.value),
    ['C'],
  );
});

test('a bad URI is a TypeError naming the part at fault, and the password never shows', async (t) => {
  const base = 'postgres://app:hunter2@127.0.0.1:1';
  const cases: [string, RegExp][] = [
    [`${base}/app?ttl=5`, /unknown parameter "ttl"/],
    [`${base}/app?schema=Bad-Name`, /schema must be lower-case/],
    [`${base}/app?schema=1st`, /schema must be/],
    [`${base}/app?prefix=app-`, /prefix must be lower-case/],
    [`${base}/app?prefix=${'p'.repeat(41)}`, /prefix must be/],
    [base, /a database is required/],
    [`${base}/`, /a database is required/],
    [`${base}/app?timeout=0`, /timeout must be a positive number/],
    [`${base}/app?timeout=soon`, /timeout must be/],
    [`${base}/app?timeout=1.5`, /timeout must be/],
    ['mysql://app:hunter2@h/app', /scheme must be postgres/],
  ];
  for (const [uri, why] of cases) {
    // Port 1 has no server: these fail on the URI alone, before any connection.
    const err = await t.throwsAsync(openPostgresStateStore(uri), { instanceOf: TypeError, message: why }, uri);
    t.regex(err!.message, /^authKoa: stateStore /);
    t.false(err!.message.includes('hunter2'), err!.message);
  }
  t.regex(
    (await t.throwsAsync(openPostgresStateStore(`${base}/app?ttl=5`)))!.message,
    /postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app/,
  );
  t.like(parsePostgresUri('postgres://h/app'), { schema: 'public', prefix: 'authkoa_', timeoutMs: 5000 });
  t.like(parsePostgresUri(`${base}/app?schema=s&prefix=&timeout=250&sslmode=require&application_name=x`), {
    schema: 's',
    prefix: '',
    timeoutMs: 250,
    connectionString: `${base}/app?sslmode=require&application_name=x`,
  });
});

test('postgresql:// works as postgres://, directly and through openStateStore', async (t) => {
  const uri = fresh().replace(/^postgres:/, 'postgresql:');
  t.true(uri.startsWith('postgresql://'));
  const direct = await open(t, uri);
  t.true(await direct.create('ns', 'k', 1, Date.now() + 60_000));
  const store = await openStateStore(uri);
  t.teardown(() => store.close());
  t.true(store instanceof PostgresStateStore);
  t.is((await store.get('ns', 'k'))?.value, 1, 'the same table as the direct store');
  t.true(await store.markUsed('jti', Date.now() + 60_000));
  t.false(await store.markUsed('jti', Date.now() + 60_000));
});

test('keys with backslashes and NUL, and their escaped look-alikes, are distinct rows that round-trip; a 512-character key works', async (t) => {
  const prefix = `t${tag()}_`;
  const store = await open(t, `${server.uri}?prefix=${prefix}&timeout=30000`);
  const keys = [
    'a\\0',
    'a\u0000',
    'a\\',
    'a\\\\',
    'a\\\\0',
    'a\\\u0000',
    '\u0000',
    '\\0',
    '\u0000\u0000',
    'a',
    'é✓😀',
    'k'.repeat(512),
  ];
  const exp = Date.now() + 60_000;
  for (const [i, key] of keys.entries()) t.true(await store.create('ns', key, i, exp), JSON.stringify(key));
  for (const [i, key] of keys.entries()) t.is((await store.get('ns', key))?.value, i, JSON.stringify(key));
  const client = await raw(t);
  const stored = (await client.query(`SELECT key FROM "public"."${prefix}state"`)).rows.map((r) => r.key as string);
  t.is(new Set(stored).size, keys.length, 'one row per key');
  t.false(
    stored.some((k) => k.includes('\u0000')),
    'no NUL reaches the text column',
  );
  // take and remove address the same rows.
  t.true(await store.take('ns', 'a\u0000', (await store.get('ns', 'a\u0000'))!.rev));
  await store.remove('ns', 'a\\\\');
  t.is(await store.get('ns', 'a\u0000'), undefined);
  t.is(await store.get('ns', 'a\\\\'), undefined);
  t.is((await store.get('ns', 'a\\0'))?.value, 0, 'its look-alike is untouched');
  t.is((await store.get('ns', 'a\\'))?.value, 2);
});

test('values round-trip exactly: unicode, NUL inside strings, nested arrays and objects, numbers and null', async (t) => {
  const store = await open(t, fresh());
  const values: unknown[] = [
    { name: 'Ålice ✓ 😀 中文 עברית', nul: 'before\u0000after', ctrl: '\u0001\u001f\u007f', quote: '"\'\\' },
    [[1, [2, [3, [4, []]]]], [{ a: [null, true, false] }], 'x'],
    {
      deep: { deeper: { deepest: ['\u0000', '\\u0000', '\\0'] } },
      n: -0.5,
      big: 9007199254740991,
      small: 1e-7,
      empty: '',
      nothing: null,
    },
    'just a string with \u0000 in it',
    0,
    null,
    [],
  ];
  const exp = Date.now() + 60_000;
  for (const [i, value] of values.entries()) t.true(await store.create('ns', `v${i}`, value, exp));
  for (const [i, value] of values.entries()) t.deepEqual((await store.get('ns', `v${i}`))?.value, value, `value ${i}`);
  const first = (await store.get('ns', 'v0'))!;
  t.true(await store.replace('ns', 'v0', first.rev, values[1], exp));
  t.deepEqual((await store.get('ns', 'v0'))?.value, values[1], 'replace keeps it exact too');
});

test('sweep() deletes exactly the expired rows, of this prefix only; every sweepEvery-th create sweeps by itself', async (t) => {
  const clock = manualClock(Date.now());
  const prefix = `t${tag()}_`;
  const store = await open(t, `${server.uri}?prefix=${prefix}&timeout=30000`, { clock, sweepEvery: 4 });
  const other = await open(t, fresh(), { clock });
  const client = await raw(t);
  const count = async () =>
    Number((await client.query(`SELECT count(*) AS n FROM "public"."${prefix}state"`)).rows[0].n);
  const now = clock();
  // Creates 1 and 2: expire at now + 1000; create 3 lives on. The 4th create will sweep.
  await store.create('a', 'short1', 1, now + 1000);
  await store.create('b', 'short2', 1, now + 1000);
  await store.create('a', 'long', 1, now + 60_000);
  await other.create('a', 'short', 1, now + 1000);
  clock.advance(1000);
  t.is(await count(), 3, 'expired rows stay until swept');
  await store.create('a', 'at-the-edge', 1, now + 2000);
  await until(async () => (await count()) === 2, 'the 4th create to sweep the two expired rows');
  t.deepEqual(
    (await client.query(`SELECT key FROM "public"."${prefix}state" ORDER BY key`)).rows.map((r) => r.key),
    ['at-the-edge', 'long'],
  );
  t.truthy(await other.get('a', 'short'), "another prefix's expired row is not this store's to sweep");

  clock.advance(1000); // at-the-edge expires exactly now: expired
  await store.create('a', 'new1', 1, now + 60_000);
  await store.create('a', 'new2', 1, now + 60_000);
  await store.create('a', 'new3', 1, now + 60_000);
  t.is(await count(), 5, 'creates 5 to 7 do not sweep');
  t.is(await store.sweep(), 1, 'sweep() counts what it deleted: the row expiring at this very ms');
  t.is(await count(), 4);
  t.is(await store.sweep(), 0);
  t.is(await other.sweep(), 1);
});

test("start-up: a wrong password and a missing database are TypeErrors with the server's reason; an unreachable port is an outage", async (t) => {
  const password = 'right-horse-battery';
  const locked = await startPostgres({ password });
  t.teardown(() => locked.destroy());
  const wrong = locked.uri.replace(password, 'hunter2');
  const badLogin = await t.throwsAsync(openPostgresStateStore(wrong), { instanceOf: TypeError });
  t.regex(
    badLogin!.message,
    new RegExp(
      `^authKoa: stateStore postgres://authkoa:\\*\\*\\*@127\\.0\\.0\\.1:${locked.port}/authkoa: password authentication failed for user "authkoa"$`,
    ),
  );
  const noDb = await t.throwsAsync(openPostgresStateStore(locked.uri.replace(/\/authkoa$/, '/nope')), {
    instanceOf: TypeError,
  });
  t.regex(
    noDb!.message,
    /^authKoa: stateStore postgres:\/\/authkoa:\*\*\*@127\.0\.0\.1:\d+\/nope: database "nope" does not exist$/,
  );

  const closedPort = await freePort();
  const away = await t.throwsAsync(
    openPostgresStateStore(`postgres://authkoa:${password}@127.0.0.1:${closedPort}/authkoa`),
  );
  t.false(away instanceof TypeError, 'an outage, which the service retries, not a configuration error');
  t.regex(
    away!.message,
    new RegExp(
      `^postgres postgres://authkoa:\\*\\*\\*@127\\.0\\.0\\.1:${closedPort}/authkoa is unavailable \\(.*ECONNREFUSED`,
    ),
  );
  for (const e of [badLogin, noDb, away])
    t.false(e!.message.includes(password) || e!.message.includes('hunter2'), e!.message);

  const store = await open(t, locked.uri);
  t.true(await store.create('ns', 'k', 1, Date.now() + 60_000), 'the right password opens');
});

test("a statement that hangs rejects within the URI's timeout, and the same store works once the server answers again", async (t) => {
  // A server of its own: pause() would stop every other test of this file.
  const hung = await startPostgres();
  t.teardown(async () => {
    hung.resume();
    await hung.destroy();
  });
  // The table first, at the default timeout: the 500 ms bound is for the statements under test.
  await (await openPostgresStateStore(hung.uri)).close();
  const store = await open(t, `${hung.uri}?timeout=500`);
  t.true(await store.create('ns', 'k', 'before', Date.now() + 60_000));
  hung.pause();
  const err = await t.throwsAsync(store.get('ns', 'k'));
  t.regex(
    err!.message,
    /^postgres postgres:\/\/authkoa@127\.0\.0\.1:\d+\/authkoa\?timeout=500: get failed: .*timeout/i,
  );
  const hit = await t.throwsAsync(store.hit('limit', [{ key: 'k', limit: 5 }], 60_000));
  t.regex(hit!.message, /hit failed: .*timeout/i, 'a transaction too');
  hung.resume();
  // Polled: the timed-out connections were dropped, and a new one must connect within 500 ms, which a
  // loaded machine may miss once. The claim is that this store recovers, not how fast.
  await until(
    async () => (await store.get('ns', 'k').catch(() => undefined))?.value === 'before',
    'the store to answer again',
  );
  // A transaction too, by the same rule: each try on a key of its own, so a try that timed out on this side but
  // counted on the server's cannot use up the limit.
  let tries = 0;
  await until(
    async () =>
      (await store.hit('limit', [{ key: `after-${tries++}`, limit: 5 }], 60_000).catch(() => 'failed')) === undefined,
    'a transaction to work again',
  );
  t.pass();
});

/** A separate process (the failure under test ends a process) that starts a hit() and reports how it ends. */
const HIT_CHILD = `
const { openPostgresStateStore } = await import('./lib/state/postgres.js');
const store = await openPostgresStateStore(process.env.STATE_URI);
const end = await store.hit('limit', [{ key: 'k', limit: 5 }], 60000).then(() => 'resolved', (e) => 'rejected: ' + e.message);
console.log(end);
await store.close();
`;

// In its own process: a client checked out for a transaction has no listener of pg-pool's, and an
// 'error' nobody hears would end the process (PostgresDb.transaction() listens while it holds one).
test('a server killed during a hit() transaction rejects that call, and the process lives on', async (t) => {
  const dying = await startPostgres();
  t.teardown(() => dying.destroy());
  await (await openPostgresStateStore(dying.uri)).close(); // the table, so the trigger below has one
  const admin = await raw(t, dying.uri);
  // Holds the counter's write inside the transaction until the kill.
  await admin.query(`CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
    CREATE TRIGGER hold BEFORE INSERT ON authkoa_state FOR EACH ROW EXECUTE FUNCTION hold()`);
  const child = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', HIT_CHILD], {
    cwd: ROOT,
    env: { ...process.env, STATE_URI: `${dying.uri}?timeout=30000` },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = once(child, 'close');
  await until(
    async () => (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'`)).rowCount === 1,
    'the hit to be held',
  );
  await dying.stop();
  const [code] = await exited;
  t.regex(
    out,
    /^rejected: postgres postgres:\/\/authkoa@127\.0\.0\.1:\d+\/authkoa\?timeout=30000: hit failed: Connection terminated unexpectedly\n$/,
  );
  t.is(code, 0);
});
