/**
 * The avatar store on a real PostgreSQL server (spec/helpers/postgres.ts): the shared store contract,
 * the rows it writes, paging past one list() page, migrations that keep modified times, `authctl
 * avatars` on postgres:// URIs, and the avatar route of a service whose avatarStore is postgres://.
 * Each test has a table prefix of its own, so tests in this file never share rows.
 */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { identicon } from '../../lib/avatar/identicon.js';
import { authKoa } from '../../lib/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { LmdbStore } from '../../lib/avatar/stores/lmdb.js';
import { PostgresStore } from '../../lib/avatar/stores/postgres.js';
import { avatarId, migrate, openStore, type AvatarStore } from '../../lib/avatar/stores/index.js';
import { sha1 } from '../../lib/user.js';
import { baseOptions } from '../core/fixtures.js';
import { ROOT } from '../helpers/cli.js';
import { Client, startApp } from '../helpers/http.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { nodeArgs } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { storeContract } from './contract.js';

let server: PostgresPeer;
test.before(async () => {
  server = await startPostgres();
});
test.after.always(() => server?.destroy());

/** A table prefix no other test uses, and the store URI with it. */
function fresh(): { prefix: string; uri: string } {
  const prefix = `t${randomBytes(5).toString('hex')}_`;
  return { prefix, uri: `${server.uri}?prefix=${prefix}` };
}

async function openFresh(t: ExecutionContext): Promise<{ prefix: string; uri: string; store: AvatarStore }> {
  const { prefix, uri } = fresh();
  const store = await openStore(uri);
  t.teardown(() => store.close());
  return { prefix, uri, store };
}

interface Row {
  id: string;
  data: Buffer;
  hash: string;
  size: number;
  modified: Date;
  data_type: string;
}

/** The avatar rows under `prefix`, read with a client of the test's own rather than through the store. */
async function rawRows(prefix: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: server.uri });
  await client.connect();
  try {
    const res = await client.query<Row>(
      `SELECT id, data, hash, size, modified, pg_typeof(data)::text AS data_type FROM "public"."${prefix}avatars" ORDER BY id`,
    );
    return res.rows;
  } finally {
    await client.end();
  }
}

/** id → [hex of the bytes, modified ms] of every avatar a store lists. */
async function snapshot(store: AvatarStore): Promise<Record<string, [string, number]>> {
  const out: Record<string, [string, number]> = {};
  for await (const e of store.list()) out[e.id] = [(await store.get(e.id))!.data.toString('hex'), e.modified.getTime()];
  return out;
}

/** A distinct past time per avatar, ms apart as well as days, so a time that is rounded or swapped shows. */
const oldTime = (i: number) => new Date(Date.UTC(2019, 4, 1) + i * 86_400_000 + i * 37);

/** Every byte value, NUL included: text columns or an encoding step would mangle some of them. */
const allBytes = (seed: number) => Buffer.from(Array.from({ length: 300 }, (_, k) => (k + seed) % 256));

function authctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs(join(ROOT, 'bin', 'authctl.ts')), 'avatars', ...args],
      { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

storeContract(test, 'postgres store', async () => ({ store: await openStore(fresh().uri) }));

test('postgres:// and postgresql:// open a PostgresStore whose name hides the password', async (t) => {
  const { uri } = fresh();
  // The server trusts local logins, so a password in the URI is accepted and ignored: only its display matters here.
  const withPassword = uri.replace(/^postgres:\/\/authkoa@/, 'postgresql://authkoa:hunter2@');
  t.not(withPassword, uri);
  const store = await openStore(withPassword);
  t.teardown(() => store.close());
  t.true(store instanceof PostgresStore);
  t.is(String(store), `postgres store ${withPassword.replace('hunter2', '***')}`);
});

test('a row holds the bytes as bytea beside their sha1, size and the modified time given to put', async (t) => {
  const { prefix, store } = await openFresh(t);
  const modified = oldTime(3);
  const id = await store.put('row-user', allBytes(7), { modified });
  await store.put('other-user', Buffer.from('other'), { modified: oldTime(9) });
  const rows = await rawRows(prefix);
  t.deepEqual(
    rows.map((r) => r.id),
    [avatarId('other-user'), avatarId('row-user')].sort(),
  );
  const row = rows.find((r) => r.id === id)!;
  t.is(row.data_type, 'bytea');
  t.true(Buffer.isBuffer(row.data));
  t.deepEqual(row.data, allBytes(7));
  t.is(row.hash, sha1(allBytes(7)));
  t.is(row.size, 300);
  t.is(row.modified.getTime(), modified.getTime());
  t.is((await store.get(id))?.etag, row.hash, 'the ETag is the stored hash');
});

test('list() pages through 1201 avatars: each id once, none missing, in id order', async (t) => {
  const { store } = await openFresh(t);
  const n = 1201; // two full pages of 500 and a part page
  const expected: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, k) =>
      store.put(`pager${i + k}`, Buffer.from(`avatar ${i + k}`)),
    );
    expected.push(...(await Promise.all(batch)));
  }
  const listed: string[] = [];
  for await (const e of store.list()) listed.push(e.id);
  t.is(listed.length, n);
  t.is(new Set(listed).size, n, 'no id twice');
  t.deepEqual([...listed].sort(), [...expected].sort(), 'every id put, none other');
  t.deepEqual(listed, [...listed].sort(), 'in id order');
});

test('migrate() LMDB → PostgreSQL → a second LMDB keeps every id, the bytes and the modified times', async (t) => {
  const dir = tempDir(t, 'authkoa-pgmig-');
  const source = new LmdbStore(join(dir, 'source'));
  t.teardown(() => source.close());
  for (let i = 0; i < 40; i++) await source.put(`mover${i}`, allBytes(i), { modified: oldTime(i) });
  const { prefix, uri } = fresh();

  t.deepEqual(await migrate(source, uri), { total: 40, copied: 40, failed: [] });
  const expected = await snapshot(source);
  const rows = await rawRows(prefix);
  t.deepEqual(
    Object.fromEntries(rows.map((r) => [r.id, [r.data.toString('hex'), r.modified.getTime()]])),
    expected,
    'the rows as the source',
  );

  const copy = new LmdbStore(join(dir, 'copy'));
  t.teardown(() => copy.close());
  t.deepEqual(await migrate(uri, copy), { total: 40, copied: 40, failed: [] });
  t.deepEqual(await snapshot(copy), expected);
  t.is(expected[avatarId('mover5')]![1], oldTime(5).getTime());
});

test('migrate() from a file store into PostgreSQL keeps the files’ modified times', async (t) => {
  const files = new FileStore(join(tempDir(t, 'authkoa-pgmig-'), 'fs'));
  for (let i = 0; i < 12; i++) await files.put(`filer${i}`, allBytes(i), { modified: oldTime(i) });
  const { uri, store } = await openFresh(t);
  t.is((await migrate(files, uri)).copied, 12);
  const expected = await snapshot(files);
  t.is(expected[avatarId('filer4')]![1], oldTime(4).getTime(), 'the source holds the old time');
  t.deepEqual(await snapshot(store), expected);
});

test('authctl avatars list shows the avatars of a postgres:// store; --json their sizes and times', async (t) => {
  const { uri, store } = await openFresh(t);
  await store.put('lister1', Buffer.from('one'), { modified: oldTime(1) });
  await store.put('lister2', Buffer.from('second'), { modified: oldTime(2) });
  const text = await authctl('list', uri);
  t.is(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  t.deepEqual(
    lines
      .slice(0, 2)
      .map((l) => l.split(/ +/))
      .sort(),
    [
      [avatarId('lister1'), '3', oldTime(1).toISOString()],
      [avatarId('lister2'), '6', oldTime(2).toISOString()],
    ].sort(),
  );
  t.is(lines[2], 'total: 2 avatars, 9 bytes');
  const json = JSON.parse((await authctl('list', uri, '--json')).stdout);
  t.deepEqual(json.total, { count: 2, bytes: 9 });
});

test('authctl avatars prune on postgres://: --older-than removes the old rows only, --keep-file all not listed', async (t) => {
  const { prefix, uri, store } = await openFresh(t);
  const longAgo = new Date(Date.now() - 100 * 86_400_000);
  for (const u of ['old1', 'old2']) await store.put(u, Buffer.from(u), { modified: longAgo });
  for (const u of ['fresh1', 'fresh2']) await store.put(u, Buffer.from(u));

  const dry = await authctl('prune', uri, '--older-than', '90d', '--dry-run');
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stdout, /would remove 2 of 4 avatars/);
  t.is((await rawRows(prefix)).length, 4, 'a dry run removes nothing');
  const real = await authctl('prune', uri, '--older-than', '90d');
  t.is(real.code, 0, real.stderr);
  t.regex(real.stdout, /removed 2 of 4 avatars/);
  t.deepEqual(
    (await rawRows(prefix)).map((r) => r.id),
    [avatarId('fresh1'), avatarId('fresh2')].sort(),
  );

  const keep = join(tempDir(t, 'authkoa-pgcli-'), 'keep.txt');
  writeFileSync(keep, 'fresh2\n');
  const kept = await authctl('prune', uri, '--keep-file', keep);
  t.is(kept.code, 0, kept.stderr);
  t.regex(kept.stdout, /removed 1 of 2 avatars/);
  t.deepEqual(
    (await rawRows(prefix)).map((r) => r.id),
    [avatarId('fresh2')],
  );
});

test('authctl avatars migrate lmdb:// → postgres:// → lmdb:// keeps ids, bytes and modified times', async (t) => {
  const dir = tempDir(t, 'authkoa-pgcli-');
  const source = new LmdbStore(join(dir, 'source'));
  for (let i = 0; i < 6; i++) await source.put(`cli${i}`, allBytes(i), { modified: oldTime(i) });
  const expected = await snapshot(source);
  await source.close();
  const { prefix, uri } = fresh();

  const there = await authctl('migrate', `lmdb://${join(dir, 'source')}`, uri);
  t.is(there.code, 0, there.stderr);
  t.regex(there.stdout, /migrated 6 of 6 avatars/);
  const rows = await rawRows(prefix);
  t.deepEqual(Object.fromEntries(rows.map((r) => [r.id, [r.data.toString('hex'), r.modified.getTime()]])), expected);

  const back = await authctl('migrate', uri, `lmdb://${join(dir, 'back')}`);
  t.is(back.code, 0, back.stderr);
  t.regex(back.stdout, /migrated 6 of 6 avatars/);
  const listed = JSON.parse((await authctl('list', `lmdb://${join(dir, 'back')}`, '--json')).stdout) as {
    avatars: Array<{ id: string; modified: string }>;
  };
  t.deepEqual(
    Object.fromEntries(listed.avatars.map((a) => [a.id, Date.parse(a.modified)])),
    Object.fromEntries(Object.entries(expected).map(([id, [, ms]]) => [id, ms])),
  );
});

test('a service with avatarStore postgres:// serves a login’s avatar from its row, with an ETag and 304 on If-None-Match', async (t) => {
  const { prefix, uri } = fresh();
  const app = await startApp(baseOptions({ avatarStore: uri, avatarResizeLimit: 100 }));
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const login = await c.fetch('/auth/direct/login?user=dev_direct&passwd=password');
  t.is(login.status, 200);
  const user = (await login.json()) as { id: string; picture: string };
  t.is(user.picture, `${app.url}/avatar/${avatarId(user.id)}`);

  const [row] = await rawRows(prefix);
  t.is(row?.id, avatarId(user.id), 'the login wrote the avatar row');
  const path = new URL(user.picture).pathname;
  const res = await c.fetch(path);
  t.is(res.status, 200);
  t.deepEqual(Buffer.from(await res.arrayBuffer()), identicon(user.id, 100));
  t.deepEqual(row!.data, identicon(user.id, 100));
  const etag = res.headers.get('etag');
  t.is(etag, `"${row!.hash}"`);

  const again = await c.fetch(path, { headers: { 'if-none-match': etag! } });
  t.is(again.status, 304);
  t.is(again.headers.get('etag'), etag);
  t.is((await c.fetch(path, { headers: { 'if-none-match': '"stale"' } })).status, 200);
});

test('avatarStore postgres:// naming a database that does not exist fails start-up with a TypeError naming the redacted URI', async (t) => {
  const uri = server.uri.replace('authkoa@', 'authkoa:hunter2@').replace(/\/authkoa$/, '/no_such_db');
  const auth = authKoa({ ...baseOptions(), url: 'http://127.0.0.1:1', avatarStore: uri });
  t.teardown(() => auth.close());
  const err = await t.throwsAsync(auth.ready, { instanceOf: TypeError });
  t.regex(
    err!.message,
    /^authKoa: avatarStore postgres:\/\/authkoa:\*\*\*@127\.0\.0\.1:\d+\/no_such_db: database "no_such_db" does not exist/,
  );
  t.false(err!.message.includes('hunter2'));
});

test('avatarStore postgres:// that cannot be reached at start-up, started anyway (startWithStoresDown): the app starts and the failure is logged (an outage, retried on first use)', async (t) => {
  const logs: string[] = [];
  const port = server.port;
  // Port 1: nothing listens there. Recovery once the server is back is the outage tests' (postgres-service.test.ts);
  // the rejection without startWithStoresDown is spec/state/store-check.test.ts's.
  const auth = authKoa({
    ...baseOptions(),
    url: 'http://127.0.0.1:1',
    startWithStoresDown: true,
    avatarStore: server.uri.replace(`:${port}/`, ':1/'),
    logger: { info: () => {}, warn: (m: string) => void logs.push(m), error: (m: string) => void logs.push(m) },
  });
  t.teardown(() => auth.close());
  await t.notThrowsAsync(auth.ready);
  t.true(
    logs.some((l) =>
      /avatar store unavailable: postgres postgres:\/\/authkoa@127\.0\.0\.1:1\/authkoa is unavailable/.test(l),
    ),
    logs.join('\n'),
  );
});
