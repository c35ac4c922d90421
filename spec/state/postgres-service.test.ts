/**
 * The service with `stateStore: 'postgres://…'` against a real PostgreSQL: what reaches the table, and
 * what an application sees when the server is away at start-up, killed mid-run, hangs, or refuses the
 * URI; the pool that stateStore, avatarStore and mfa.store share ends with the app; a kill during an
 * avatar write leaves no half-written row. (Two app processes on one database: postgres-two-process.)
 */
import test, { type ExecutionContext } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { authKoa, type AuthKoaOptions } from '../../lib/index.js';
import { Client } from '../helpers/http.js';
import { emailApp as sharedEmailApp } from './email-app.js';
import { rawClient, startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const SECRET = 'postgres-service-test-secret-0123456789';
const tag = () => randomBytes(5).toString('hex');

const emailApp = (t: ExecutionContext, stateStore: string, more: Partial<AuthKoaOptions> = {}) =>
  sharedEmailApp(t, SECRET, stateStore, more);

const raw = rawClient;

/** A server of the test's own, for the tests that stop or pause it. */
async function ownServer(t: ExecutionContext, opts: { password?: string } = {}): Promise<PostgresPeer> {
  const server = await startPostgres(opts);
  t.teardown(async () => {
    server.resume();
    await server.destroy();
  });
  return server;
}

const UNAVAILABLE = { error: 'login state is unavailable', code: 'state_store_unavailable' };

let shared: PostgresPeer;
test.before(async () => {
  shared = await startPostgres();
});
test.after.always(() => shared?.destroy());

test('a confirmation token is spent in the table, and the rate-limit counters and the session list live there', async (t) => {
  const prefix = `t${tag()}_`;
  const e = await emailApp(t, `${shared.uri}?prefix=${prefix}`);
  const { res, token } = await e.request();
  t.is(res.status, 200);
  t.is((await e.confirm(token!)).status, 200);
  t.is((await e.confirm(token!)).status, 403, 'spent');
  const client = await raw(t, shared.uri);
  const { rows } = await client.query<{ ns: string; key: string; value: unknown }>(
    `SELECT ns, key, value FROM "public"."${prefix}state" ORDER BY ns, key`,
  );
  const names = rows.map((r) => `${r.ns}:${r.key}`);
  t.is(rows.length, 4, names.join(' '));
  t.true(
    names.some((k) => k.startsWith('used:verified:email:')),
    'the spent token id',
  );
  t.true(
    names.some((k) => k.startsWith('sessions:d:email_')),
    "the user's session list",
  );
  t.true(
    names.some((k) => k.startsWith('limit:verified:email:i:')),
    'the per-IP counter',
  );
  t.is(
    rows.find((r) => `${r.ns}:${r.key}` === 'limit:verified:email:a:a@example.com')?.value,
    1,
    'the per-address counter, at 1',
  );
});

test('PostgreSQL down at start-up, started anyway (startWithStoresDown): ready resolves, logins answer 503 JSON, and work once it is up', async (t) => {
  const server = await ownServer(t);
  await server.stop();
  const e = await emailApp(t, server.uri, { startWithStoresDown: true });
  t.true(
    e.logs.some((l) =>
      /^error authKoa: stateStore postgres:\/\/\S+: cannot connect: connection refused \(ECONNREFUSED\); started anyway/.test(
        l,
      ),
    ),
    e.logs.join('\n'),
  );
  const down = await e.login('alice');
  t.is(down.status, 503);
  t.deepEqual(await down.json(), UNAVAILABLE);
  t.is(e.client.jar.has('JWT'), false);

  await server.start();
  await until(async () => (await e.login('alice')).status === 200, 'PostgreSQL to be picked up', 45_000);
  t.is(e.client.jar.has('JWT'), true);
});

test('PostgreSQL killed mid-run: requests answer 503 JSON at once, and after a restart the same app works', async (t) => {
  const server = await ownServer(t);
  const e = await emailApp(t, server.uri);
  const first = await e.request();
  t.is(first.res.status, 200);

  await server.stop();
  const results = await Promise.all(Array.from({ length: 10 }, () => e.confirm(first.token!)));
  t.deepEqual(
    results.map((r) => r.status),
    Array(10).fill(503),
  );
  t.deepEqual(await results[0]!.json(), UNAVAILABLE);
  t.is(e.client.jar.has('JWT'), false, 'no session was issued');

  await server.start(); // the same data: the token was written before the kill
  await until(async () => (await e.confirm(first.token!)).status !== 503, 'the pool to reconnect', 45_000);
  t.is(e.client.jar.has('JWT'), true, 'the token was spent once PostgreSQL was back');
  t.is((await e.confirm(first.token!)).status, 403, 'and only once');
});

test('a PostgreSQL that hangs: requests end with 503 after the timeout, not a hung request', async (t) => {
  const server = await ownServer(t);
  // The timeout bounds every statement of the good requests around the hang too: 2 s is within a
  // loaded machine's reach for those. The hang pays it once.
  const e = await emailApp(t, `${server.uri}?timeout=2000`);
  t.is((await e.request()).res.status, 200);
  server.pause();
  const res = (await e.request('c@example.com')).res;
  t.is(res.status, 503);
  t.deepEqual(await res.json(), UNAVAILABLE);
  t.true(
    e.logs.some((l) => /hit failed: .*timeout/i.test(l)),
    e.logs.join('\n'),
  );
  server.resume();
  await until(async () => (await e.request('d@example.com')).res.status === 200, 'the server to answer again', 45_000);
});

test('a refused password or a missing database fails start-up naming the redacted URI', async (t) => {
  const server = await ownServer(t, { password: 'right-horse-battery' });
  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    logger: () => {},
    providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
    // The server's refusal is the subject, not the bound: a loaded machine took more than the default 3 s to
    // answer the password exchange, and the test saw an outage instead.
    storeCheckTimeout: '30s',
  };
  const cases = {
    wrongPassword: server.uri.replace('right-horse-battery', 'hunter2'),
    missingDb: server.uri.replace(/\/authkoa$/, '/nope'),
  };
  const errors: Record<string, string> = {};
  for (const [name, uri] of Object.entries(cases)) {
    const auth = authKoa({ ...base, stateStore: uri });
    errors[name] = await auth.ready.then(
      () => 'started',
      (err: Error) => `${err.constructor.name}: ${err.message}`,
    );
    await auth.close();
  }
  const at = `127\\.0\\.0\\.1:${server.port}`;
  t.regex(
    errors.wrongPassword!,
    new RegExp(
      `^TypeError: authKoa: stateStore postgres://authkoa:\\*\\*\\*@${at}/authkoa: password authentication failed for user "authkoa"$`,
    ),
  );
  t.regex(
    errors.missingDb!,
    new RegExp(
      `^TypeError: authKoa: stateStore postgres://authkoa:\\*\\*\\*@${at}/nope: database "nope" does not exist$`,
    ),
  );
  for (const m of Object.values(errors)) t.false(m.includes('hunter2') || m.includes('right-horse'), m);

  const ok = authKoa({ ...base, stateStore: server.uri });
  t.teardown(() => ok.close());
  await t.notThrowsAsync(ok.ready, 'the right password and database start');
});

// node-postgres refuses a password-less login to a SCRAM server on the client side, without a SQLSTATE:
// startError() knows its words, so this is a start-up error too, not an endless 503.
test('a URI without the password the server requires fails start-up too', async (t) => {
  const server = await ownServer(t, { password: 'right-horse-battery' });
  const auth = authKoa({
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    stateStore: server.uri.replace(':right-horse-battery@', '@'),
    providers: [{ kind: 'direct', name: 'local', checker: () => true }],
    storeCheckTimeout: '30s', // the refusal is the subject, not the bound
  });
  t.teardown(() => auth.close());
  const err = await t.throwsAsync(auth.ready, { instanceOf: TypeError });
  t.regex(err!.message, /^authKoa: stateStore postgres:\/\/authkoa@127\.0\.0\.1:\d+\/authkoa: .*password/);
});

test('stateStore, avatarStore and mfa.store on one URI: login state, the avatar and an MFA set-up land there, and close() leaves no connection open', async (t) => {
  const appName = `authkoa_${tag()}`;
  const prefix = `t${tag()}_`;
  const uri = `${shared.uri}?prefix=${prefix}&application_name=${appName}`;
  const e = await emailApp(t, uri, { avatarStore: uri, mfa: { store: uri } });
  const client = await raw(t, shared.uri);
  const ours = async () =>
    Number(
      (await client.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [appName])).rows[0]
        .n,
    );

  const login = await e.login('alice');
  t.is(login.status, 200);
  const user = (await login.json()) as { id: string; picture: string };
  const avatar = await e.client.fetch(new URL(user.picture).pathname);
  t.is(avatar.status, 200);
  const stored = (await client.query(`SELECT data FROM "public"."${prefix}avatars"`)).rows;
  t.is(stored.length, 1);
  t.deepEqual(stored[0].data, Buffer.from(await avatar.arrayBuffer()), 'the served avatar is the row');
  const setup = await e.client.fetch('/auth/mfa/totp/setup', { method: 'POST', headers: e.client.xsrf() });
  t.is(setup.status, 200, await setup.clone().text());
  const namespaces = (await client.query(`SELECT DISTINCT ns FROM "public"."${prefix}state"`)).rows.map((r) => r.ns);
  t.true(namespaces.includes('mfa'), `the pending set-up is in the same table: ${namespaces.join(' ')}`);
  const during = await ours();
  t.true(during >= 1, `while it runs, the app's connections carry the name (${during})`);

  await e.app.close();
  // A backend leaves pg_stat_activity a moment after its client said goodbye. A pool left open would
  // keep its idle connections for its 30 s idle timeout, well past this deadline.
  await until(async () => (await ours()) === 0, 'the connections to end', 10_000);
  t.is(await ours(), 0, 'every connection was ended by close()');
});

/**
 * Triggers that hold a write inside its statement (uncommitted) until the server is killed: an avatar
 * write with bytes, and the spending of a confirmation token. (Not a rate-limit counter: hit() runs in
 * a transaction, and a server dying under one crashes the process, a lib bug postgres.test.ts shows.)
 */
const HOLD_WRITES = `
CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(60); RETURN NEW; END $$;
CREATE TRIGGER hold_avatar BEFORE INSERT OR UPDATE ON authkoa_avatars FOR EACH ROW WHEN (octet_length(NEW.data) > 0) EXECUTE FUNCTION hold();
CREATE TRIGGER hold_spend BEFORE INSERT OR UPDATE ON authkoa_state FOR EACH ROW WHEN (NEW.ns = 'used') EXECUTE FUNCTION hold();`;

/** Every avatar row, checked whole: its hash is its bytes' SHA-1 and its size their length. */
async function wholeAvatars(t: ExecutionContext, client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ id: string; data: Buffer; hash: string; size: number }>(
    'SELECT id, data, hash, size FROM authkoa_avatars ORDER BY id',
  );
  for (const r of rows) {
    t.is(r.hash, createHash('sha1').update(r.data).digest('hex'), `the hash of ${r.id} is its data's`);
    t.is(r.size, r.data.length, `the size of ${r.id} is its data's`);
  }
  return rows.map((r) => r.id);
}

test('PostgreSQL killed while an avatar is written and a login waits: JSON 5xx answers, no half-written row, and the app recovers', async (t) => {
  const server = await ownServer(t);
  // A timeout longer than the test: the held statements must still be running when the server dies.
  const uri = `${server.uri}?timeout=30000`;
  const e = await emailApp(t, uri, { avatarStore: uri, loginThrottle: false });
  for (const name of ['before1', 'before2']) t.is((await e.login(name)).status, 200);
  const admin = await raw(t, server.uri);
  t.is((await wholeAvatars(t, admin)).length, 2);

  const { token } = await e.request('w@example.com');
  // A write in two statements (the row, then its bytes) would commit the first before the hold.
  await admin.query(HOLD_WRITES);
  const avatarLogin = e.login('victim', new Client(e.app.url));
  const stateLogin = new Client(e.app.url).fetch(`/auth/email/login?token=${encodeURIComponent(token!)}`, {
    method: 'POST',
  });
  const held = async () =>
    (
      await admin.query<{ query: string }>(
        `SELECT query FROM pg_stat_activity WHERE wait_event = 'PgSleep' ORDER BY query`,
      )
    ).rows.map((r) => r.query);
  await until(
    async () => (await held()).length === 2,
    'the avatar write and the token spending to be held in their statements',
  );
  t.deepEqual(
    (await held()).map((q) => q.match(/^INSERT INTO \S+/)?.[0]),
    ['INSERT INTO "public"."authkoa_avatars"', 'INSERT INTO "public"."authkoa_state"'],
  );
  await server.stop();
  const [avatarRes, stateRes] = await Promise.all([avatarLogin, stateLogin]);
  t.is(stateRes.status, 503);
  t.deepEqual(await stateRes.json(), UNAVAILABLE);
  t.is(avatarRes.status, 503, 'a store whose database went away is an outage: 503 avatar_store_unavailable');
  t.deepEqual(await avatarRes.json(), { error: "can't save avatar", code: 'avatar_store_unavailable' });

  await server.start();
  const after = await raw(t, server.uri);
  t.is((await wholeAvatars(t, after)).length, 2, "the two earlier avatars, whole; nothing of the victim's");
  await after.query('DROP TRIGGER hold_avatar ON authkoa_avatars; DROP TRIGGER hold_spend ON authkoa_state');
  await until(
    async () => (await e.login('victim', new Client(e.app.url))).status === 200,
    'the app to recover',
    45_000,
  );
  t.is((await wholeAvatars(t, after)).length, 3);
  t.is((await e.confirm(token!)).status, 200, 'the token whose spending was cut off was not spent');
  t.is((await e.confirm(token!)).status, 403);
});
