/**
 * The PostgreSQL state table's life cycle against a real server: created with its index on the first
 * open of a fresh database, left alone by later opens, created once when several stores open at once
 * (the advisory lock), made by `authctl db migrate` for a role that may not create tables, and the
 * CLI's `--print` and error output.
 */
import test, { type ExecutionContext } from 'ava';
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import pg from 'pg';
import { openPostgresStateStore } from '../../lib/state/postgres.js';
import { runCli } from '../helpers/cli.js';
import { rawClient, startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

const tag = () => randomBytes(5).toString('hex');
/** The advisory lock id lib/postgres/db.ts takes around table creation ("authkoa" in ASCII). */
const DDL_LOCK = '27432215569461089';

const raw = rawClient;

async function open(t: ExecutionContext, uri: string) {
  const store = await openPostgresStateStore(uri);
  t.teardown(() => store.close());
  return store;
}

/** The state table's and its index's identity, or nulls when they are missing. */
async function tableOids(client: pg.Client, table = 'authkoa_state') {
  const { rows } = await client.query(`SELECT to_regclass($1)::oid AS tbl, to_regclass($2)::oid AS idx`, [
    `public.${table}`,
    `public.${table}_expires_at`,
  ]);
  return rows[0] as { tbl: number | null; idx: number | null };
}

test('a fresh database gets the table and its expiry index at first open; a later open creates nothing, even while the schema lock is held', async (t) => {
  const uri = await server.database(`fresh_${tag()}`);
  const client = await raw(t, uri);
  t.deepEqual(await tableOids(client), { tbl: null, idx: null });
  const first = await open(t, uri);
  const made = await tableOids(client);
  t.truthy(made.tbl);
  t.truthy(made.idx);
  const columns = await client.query(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'authkoa_state' ORDER BY ordinal_position`,
  );
  t.deepEqual(
    columns.rows.map((r) => `${r.column_name} ${r.data_type}`),
    ['ns text', 'key text', 'value json', 'expires_at bigint', 'rev text'],
  );
  await first.create('ns', 'kept', 'yes', Date.now() + 60_000);

  // Another session holds the lock table creation takes: an open that tried to create anything would
  // wait on it until its timeout. One that finds the table there takes no lock at all.
  await client.query('SELECT pg_advisory_lock($1)', [DDL_LOCK]);
  const second = await open(t, `${uri}?timeout=10000`);
  await client.query('SELECT pg_advisory_unlock($1)', [DDL_LOCK]);
  t.deepEqual(await tableOids(client), made, 'the same table and index');
  t.is((await second.get('ns', 'kept'))?.value, 'yes', 'with its rows');
});

test('table creation waits for the schema lock: an open of a fresh database finishes only once another holder lets go', async (t) => {
  const uri = await server.database(`locked_${tag()}`);
  const client = await raw(t, uri);
  await client.query('SELECT pg_advisory_lock($1)', [DDL_LOCK]);
  // A timeout beyond the test's steps: the open must wait on the lock, not give up under a loaded machine.
  const opening = openPostgresStateStore(`${uri}?timeout=30000`);
  t.teardown(async () => (await opening.catch(() => undefined))?.close());
  // Advisory locks belong to their database, and this one is the test's own: a waiter is the store.
  const waits = async () =>
    (
      await client.query(
        `SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`,
      )
    ).rowCount! > 0;
  await until(waits, 'the opening store to wait on the lock');
  t.is((await tableOids(client)).tbl, null, 'nothing was created while it waits');
  await client.query('SELECT pg_advisory_unlock($1)', [DDL_LOCK]);
  const store = await opening;
  t.truthy((await tableOids(client)).tbl);
  t.true(await store.create('ns', 'k', 1, Date.now() + 60_000));
});

test('six stores opened at once on a fresh database all open, on one table', async (t) => {
  const uri = await server.database(`race_${tag()}`);
  // Five wait on the lock while the first creates; a long timeout keeps a loaded machine from cutting them off.
  const stores = await Promise.all(Array.from({ length: 6 }, () => openPostgresStateStore(`${uri}?timeout=30000`)));
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  const results = await Promise.all(stores.map((s, i) => s.create('ns', 'one', i, Date.now() + 60_000)));
  t.is(results.filter(Boolean).length, 1, 'one table: the key is taken once over all six');
  const client = await raw(t, uri);
  t.is(
    (await client.query(`SELECT count(*)::int AS n FROM pg_class WHERE relname LIKE 'authkoa_state%'`)).rows[0].n,
    3,
    'the table, its key and its index, once',
  );
});

test('a role that may not create tables opens the tables `authctl db migrate` made, and is refused naming the URI where they are missing', async (t) => {
  const uri = await server.database(`roles_${tag()}`);
  const admin = await raw(t, uri);
  const role = `app_${tag()}`;
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app-secret'`);
  // Roles belong to the whole server, which the file's other tests share: this one goes with the test.
  t.teardown(() => admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`).catch(() => undefined));
  // PostgreSQL 15 and later already give PUBLIC no CREATE on public; older ones do, so take it away.
  await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  t.false(
    (await admin.query(`SELECT has_schema_privilege($1, 'public', 'CREATE') AS may`, [role])).rows[0].may,
    'the role may not create in public',
  );
  t.false(
    (await admin.query(`SELECT has_database_privilege($1, current_database(), 'CREATE') AS may`, [role])).rows[0].may,
    'nor a schema',
  );

  const migrated = await runCli(['db', 'migrate', uri]);
  t.is(migrated.code, 0, migrated.stderr);
  t.regex(
    migrated.stdout,
    /^authctl db migrate: "public"\."authkoa_state", "public"\."authkoa_avatars" and "public"\."authkoa_accounts" are ready in postgres:\/\/authkoa@127\.0\.0\.1:\d+\/roles_\w+\n$/,
  );
  t.is((await runCli(['db', 'migrate', uri])).code, 0, 'running it again is harmless');
  await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);

  const appUri = uri.replace('://authkoa@', `://${role}:app-secret@`);
  const store = await open(t, appUri);
  t.true(await store.create('ns', 'k', 'v', Date.now() + 60_000));
  t.is(await store.hit('limit', [{ key: 'k', limit: 1 }], 60_000), undefined);
  t.is((await admin.query('SELECT value FROM authkoa_state WHERE key = $1', ['k'])).rows[0].value, 'v');

  const missing = `${appUri}?prefix=other_`;
  const err = await t.throwsAsync(openPostgresStateStore(missing), { instanceOf: TypeError });
  t.regex(
    err!.message,
    new RegExp(
      `^authKoa: stateStore postgres://${role}:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/roles_\\w+\\?prefix=other_: permission denied for schema public \\(create the tables with \`authctl db migrate <uri>\` or the DDL in docs/scaling\\.md\\)$`,
    ),
  );
  t.false(err!.message.includes('app-secret'));
});

test("`authctl db migrate --print` prints the DDL for the URI's schema and prefix and connects to nothing", async (t) => {
  // A listener that counts connections: a migrate that connected would show here (and hang on it).
  const sockets: Socket[] = [];
  const listener = createServer((s) => sockets.push(s)).listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => listener.close(() => r()));
  });
  const { port } = listener.address() as { port: number };
  const r = await runCli([
    'db',
    'migrate',
    `postgres://app:hunter2@127.0.0.1:${port}/app?schema=tenant_a&prefix=shop_`,
    '--print',
  ]);
  t.is(r.code, 0, r.stderr);
  t.is(sockets.length, 0, 'no connection was made');
  t.is(r.stderr, '');
  const statements = r.stdout.split(';\n').filter((s) => s.trim() !== '');
  t.is(statements.length, 8, r.stdout);
  t.is(statements[0], 'CREATE SCHEMA IF NOT EXISTS "tenant_a"');
  t.regex(
    statements[1]!,
    /^CREATE TABLE IF NOT EXISTS "tenant_a"\."shop_state" \(\n {2}ns text NOT NULL,[^]*PRIMARY KEY \(ns, key\)\n\)$/,
  );
  t.is(statements[2], 'CREATE INDEX IF NOT EXISTS "shop_state_expires_at" ON "tenant_a"."shop_state" (expires_at)');
  // The revocation channel's log (lib/state/postgres-broadcast.ts), beside the state.
  t.regex(
    statements[3]!,
    /^CREATE TABLE IF NOT EXISTS "tenant_a"\."shop_broadcast" \(\n {2}id bigserial PRIMARY KEY,[^]*body json NOT NULL\n\)$/,
  );
  t.is(
    statements[4],
    'CREATE INDEX IF NOT EXISTS "shop_broadcast_topic_at" ON "tenant_a"."shop_broadcast" (topic, at)',
  );
  t.regex(
    statements[5]!,
    /^CREATE TABLE IF NOT EXISTS "tenant_a"\."shop_avatars" \(\n {2}id text PRIMARY KEY,[^]*modified timestamptz NOT NULL\n\)$/,
  );
  t.regex(
    statements[6]!,
    /^CREATE TABLE IF NOT EXISTS "tenant_a"\."shop_accounts" \(\n {2}id text PRIMARY KEY,[^]*rev text NOT NULL\n\)$/,
  );
  t.is(statements[7], 'CREATE UNIQUE INDEX IF NOT EXISTS "shop_accounts_email" ON "tenant_a"."shop_accounts" (email)');
  t.false(r.stdout.includes('hunter2'));

  // The printed script is what migrate runs: applied by hand, the stores open on it.
  const uri = await server.database(`printed_${tag()}`);
  const admin = await raw(t, uri);
  await admin.query(r.stdout);
  const store = await open(t, `${uri}?schema=tenant_a&prefix=shop_`);
  t.true(await store.create('ns', 'k', 1, Date.now() + 60_000));
  t.is((await admin.query('SELECT count(*)::int AS n FROM tenant_a.shop_state')).rows[0].n, 1);
});

test('`authctl db migrate` on a bad or unreachable URI prints one line without the password and exits 1', async (t) => {
  const bad = await runCli(['db', 'migrate', 'postgres://app:hunter2@127.0.0.1:1/app?ttl=5']);
  t.is(bad.code, 1);
  t.is(bad.stdout, '');
  t.is(
    bad.stderr,
    'authctl: <uri> postgres://app:***@127.0.0.1:1/app?ttl=5: unknown parameter "ttl" (schema, prefix, timeout, sslmode, sslrootcert, sslcert, sslkey, application_name are supported)\n',
  );
  const refused = await runCli(['db', 'migrate', `${server.uri.replace('authkoa@', 'authkoa:hunter2@')}_missing`]);
  t.is(refused.code, 1);
  t.regex(
    refused.stderr,
    /^authctl: cannot migrate postgres:\/\/authkoa:\*\*\*@127\.0\.0\.1:\d+\/authkoa_missing: .*database "authkoa_missing" does not exist\n$/,
  );
  const away = await runCli(['db', 'migrate', 'postgres://app:hunter2@127.0.0.1:1/app?timeout=2000']);
  t.is(away.code, 1);
  t.regex(
    away.stderr,
    /^authctl: cannot migrate postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app\?timeout=2000: postgres .* is unavailable \(.*\)\n$/,
  );
  for (const r of [bad, refused, away]) t.false(r.stderr.includes('hunter2'), r.stderr);
});
