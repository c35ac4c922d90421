/**
 * The PostgreSQL test helper itself (spec/helpers/postgres.ts), against the real server it starts: it
 * answers, keeps databases apart, refuses a wrong password, goes away on stop() and comes back with its
 * data on start(), hangs on pause() and answers after resume(), and leaves no process or folder behind.
 * Every test has a server of its own: stop and pause would break a shared one under the others.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';

async function peer(t: ExecutionContext, opts: { password?: string } = {}): Promise<PostgresPeer> {
  const server = await startPostgres(opts);
  t.teardown(() => server.destroy());
  return server;
}

/** A client closed after the test; a server killed under it is an 'error' event, which must not end the test process. */
function newClient(t: ExecutionContext, config: pg.ClientConfig): pg.Client {
  const created = new pg.Client(config);
  created.on('error', () => undefined);
  t.teardown(() => created.end().catch(() => undefined));
  return created;
}

async function connect(t: ExecutionContext, connectionString: string): Promise<pg.Client> {
  const connected = newClient(t, { connectionString });
  await connected.connect();
  return connected;
}

/** Whether the process runs: a zombie (dead, not yet reaped by its new parent) does not. */
function alive(pid: number): boolean {
  try {
    // After the last ')' (the name may hold any character) comes the state letter.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim()[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A query with its own read timeout (pg takes `query_timeout` per query; its types list it only per client). */
const timed = (text: string, ms: number): pg.QueryConfig => Object.assign({ text }, { query_timeout: ms });

const one = async (client: pg.Client, text: string) => (await client.query(text)).rows[0];

test('a started server answers SELECT 1 as the authkoa superuser, and database() gives each caller a database of its own', async (t) => {
  const server = await peer(t);
  t.is(server.uri, `postgres://authkoa@127.0.0.1:${server.port}/authkoa`);
  const main = await connect(t, server.uri);
  t.deepEqual(await one(main, 'SELECT 1 AS one, current_user AS who, current_database() AS db'), {
    one: 1,
    who: 'authkoa',
    db: 'authkoa',
  });
  t.true((await one(main, "SELECT rolsuper FROM pg_roles WHERE rolname = 'authkoa'")).rolsuper);

  const [first, second] = await Promise.all([server.database('first_db'), server.database('second_db')]);
  t.is(first, `postgres://authkoa@127.0.0.1:${server.port}/first_db`);
  const a = await connect(t, first);
  const b = await connect(t, second);
  await a.query('CREATE TABLE only_here (n int)');
  t.is((await one(a, "SELECT to_regclass('only_here') AS r")).r, 'only_here');
  t.is((await one(b, "SELECT to_regclass('only_here') AS r")).r, null, 'a table of one database is not in the other');
  await t.throwsAsync(server.database('first_db'), { message: /already exists/ });
});

test('with a password, a wrong one is refused with 28P01 and the one in the URI is accepted', async (t) => {
  const password = 'pg s3cret:/@';
  const server = await peer(t, { password });
  t.is(server.uri, `postgres://authkoa:${encodeURIComponent(password)}@127.0.0.1:${server.port}/authkoa`);
  const wrong = newClient(t, {
    host: '127.0.0.1',
    port: server.port,
    user: 'authkoa',
    password: 'not it',
    database: 'authkoa',
  });
  await t.throwsAsync(wrong.connect(), { code: '28P01' });
  t.is((await one(await connect(t, server.uri), 'SELECT 1 AS one')).one, 1);
  t.regex(
    await server.database('with_password'),
    /^postgres:\/\/authkoa:pg%20s3cret%3A%2F%40@127\.0\.0\.1:\d+\/with_password$/,
  );
});

test('stop() is a crash: every server process is gone and connecting fails; start() recovers the rows on the same port', async (t) => {
  const server = await peer(t);
  const before = await connect(t, server.uri);
  await before.query('CREATE TABLE kept (word text)');
  await before.query("INSERT INTO kept VALUES ('survives')");
  const backend: number = (await one(before, 'SELECT pg_backend_pid() AS pid')).pid;
  const postmaster = server.pid!;
  t.true(alive(postmaster), 'the postmaster runs');
  t.true(alive(backend), 'its backend runs');

  await server.stop();
  t.is(server.pid, undefined);
  t.false(alive(postmaster), 'the postmaster is gone');
  t.false(alive(backend), 'its backend is gone too, not left running without it');
  const refused = newClient(t, { connectionString: server.uri });
  await t.throwsAsync(refused.connect(), { code: 'ECONNREFUSED' });

  await server.start();
  t.not(server.pid, undefined);
  t.not(server.pid, postmaster);
  const after = await connect(t, server.uri);
  t.deepEqual((await after.query('SELECT word FROM kept')).rows, [{ word: 'survives' }]);
});

test('pause() hangs queries and new connections; after resume() the next query answers', async (t) => {
  const server = await peer(t);
  const busy = await connect(t, server.uri);
  t.is((await one(busy, 'SELECT 1 AS one')).one, 1);

  server.pause();
  t.teardown(() => server.resume()); // else a failure below leaves the clients' teardown waiting on a stopped server
  await t.throwsAsync(busy.query(timed('SELECT 1', 500)), { message: /timeout/i }, 'a running backend answers nothing');
  const late = newClient(t, { connectionString: server.uri, connectionTimeoutMillis: 500 });
  await t.throwsAsync(late.connect(), { message: /timeout/i }, 'the postmaster takes no new connection');
  server.resume();
  // A bound, not a clock: a resumed server answers at once, a still-stopped backend never does.
  t.is((await busy.query(timed('SELECT 2 AS two', 20_000))).rows[0].two, 2);
});

test('destroy(), even of a paused server, leaves no server process and removes the data directory', async (t) => {
  const server = await peer(t);
  const client = await connect(t, server.uri);
  const { pid: backend, dir } = await one(
    client,
    "SELECT pg_backend_pid() AS pid, current_setting('data_directory') AS dir",
  );
  const postmaster = server.pid!;
  t.true(existsSync(dir));

  // Paused, the backends cannot notice the postmaster's death and leave on their own: they must be killed.
  server.pause();
  t.teardown(() => server.resume()); // else a failure below leaves the clients' teardown waiting on a stopped server
  await server.destroy();
  t.false(alive(postmaster));
  t.false(alive(backend));
  t.false(existsSync(dir));
  t.is(server.pid, undefined);
});
