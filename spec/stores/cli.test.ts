/** `authctl avatars …` run as a child process, against real stores in temp dirs. */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { avatarId } from '../../lib/avatar/stores/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { LmdbStore } from '../../lib/avatar/stores/lmdb.js';
import { startMongo } from '../helpers/mongo.js';
import { nodeArgs } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');

function authctl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs(join(root, 'bin', 'authctl.ts')), 'avatars', ...args],
      { cwd: root, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const PREFIX = 'authkoa-cli-';

async function fileStoreWith(t: ExecutionContext, users: string[]) {
  const dir = tempDir(t, PREFIX);
  const store = new FileStore(join(dir, 'fs'));
  for (const u of users) await store.put(u, Buffer.from(`picture of ${u}`));
  return { dir, store, path: join(dir, 'fs') };
}

test('list prints id, size and modified per avatar and the total; --json the same as JSON', async (t) => {
  const { path } = await fileStoreWith(t, ['alice', 'bob']);
  const text = await authctl('list', path);
  t.is(text.code, 0, text.stderr);
  const lines = text.stdout.trim().split('\n');
  t.is(lines.length, 3);
  t.regex(lines[0]!, /^[0-9a-f]{40}\.image +\d+ +\d{4}-\d\d-\d\dT/);
  t.is(lines[2], `total: 2 avatars, ${'picture of alice'.length + 'picture of bob'.length} bytes`);
  const json = JSON.parse((await authctl('list', `file://${path}`, '--json')).stdout);
  t.deepEqual(json.avatars.map((a: { id: string }) => a.id).sort(), [avatarId('alice'), avatarId('bob')].sort());
  t.deepEqual(json.total, { count: 2, bytes: 30 });
});

test('prune --older-than removes only old avatars; --dry-run removes nothing', async (t) => {
  const { store, path } = await fileStoreWith(t, ['old1', 'old2', 'fresh']);
  const longAgo = new Date(Date.now() - 100 * 86_400_000);
  for (const u of ['old1', 'old2']) utimesSync(store.location(avatarId(u)), longAgo, longAgo);
  const dry = await authctl('prune', path, '--older-than', '90d', '--dry-run');
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stdout, /would remove 2 of 3 avatars/);
  t.regex(dry.stderr, new RegExp(`would remove ${avatarId('old1')}`), 'plain lines when not on a terminal');
  t.truthy(await store.get(avatarId('old1')));
  const real = await authctl('prune', path, '--older-than', '90d');
  t.regex(real.stdout, /removed 2 of 3 avatars/);
  t.is(await store.get(avatarId('old1')), undefined);
  t.truthy(await store.get(avatarId('fresh')));
});

test('prune --keep-file keeps listed avatar ids or user ids (LMDB store)', async (t) => {
  const dir = tempDir(t, PREFIX);
  const lm = new LmdbStore(join(dir, 'ava'));
  for (const u of ['keep_me', 'keep_hash', 'drop_me']) await lm.put(u, Buffer.from(u));
  await lm.close();
  writeFileSync(join(dir, 'keep.txt'), `# active users\nkeep_me\n\n${avatarId('keep_hash')}\n`);
  const r = await authctl('prune', `lmdb://${join(dir, 'ava')}`, '--keep-file', join(dir, 'keep.txt'));
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /removed 1 of 3 avatars/);
  const after = new LmdbStore(join(dir, 'ava'));
  t.is(await after.get(avatarId('drop_me')), undefined);
  t.truthy(await after.get(avatarId('keep_me')));
  t.truthy(await after.get(avatarId('keep_hash')));
  await after.close();
});

test('prune needs exactly one rule, and a valid duration', async (t) => {
  const { path } = await fileStoreWith(t, ['x']);
  const none = await authctl('prune', path);
  t.is(none.code, 1);
  t.is(none.stderr, 'authctl: prune needs exactly one of --older-than or --keep-file\n');
  const bad = await authctl('prune', path, '--older-than', 'soon');
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--older-than/);
});

test('migrate file → lmdb → GridFS (CongoDB stand-in for mongod) keeps ids and bytes', async (t) => {
  const { dir, store, path } = await fileStoreWith(t, ['m1', 'm2', 'm3']);
  const lmdb = `lmdb://${join(dir, 'ava')}`;
  const a = await authctl('migrate', path, lmdb);
  t.is(a.code, 0, a.stderr);
  t.regex(a.stdout, /migrated 3 of 3 avatars/);
  t.is(a.stderr.trim().split('\n').length, 3, 'one plain progress line per avatar');
  const mongo = await startMongo();
  try {
    const b = await authctl('migrate', lmdb, mongo.uriWith({ ava_db: `cli`, ava_coll: 'av' }));
    t.is(b.code, 0, b.stderr);
    const listed = JSON.parse(
      (await authctl('list', mongo.uriWith({ ava_db: `cli`, ava_coll: 'av' }), '--json')).stdout,
    );
    t.is(listed.total.count, 3);
    const back = await authctl('migrate', mongo.uriWith({ ava_db: `cli`, ava_coll: 'av' }), join(dir, 'back'));
    t.is(back.code, 0, back.stderr);
    t.is(
      (await new FileStore(join(dir, 'back')).get(avatarId('m2')))?.data.toString(),
      (await store.get(avatarId('m2')))?.data.toString(),
    );
  } finally {
    await mongo.stop();
  }
});

test('a bad URI, a missing store and an unreachable server are one-line errors with exit 1', async (t) => {
  for (const [args, message] of [
    [['list', 'redis://user:hunter2@host/0'], /^authctl: <store> has unsupported scheme "redis:\/\/"/],
    [
      ['list', '/nonexistent/authkoa/avatars'],
      /^authctl: <store> \/nonexistent\/authkoa\/avatars: no store there \(read-only commands never create one\)\n$/,
    ],
    [['list', 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300'], /^authctl: cannot open mongodb store: /],
    [['migrate', 'bolt://', '/tmp/x'], /^authctl: <from> with scheme "bolt:\/\/" needs a path/],
  ] as const) {
    const r = await authctl(...args);
    t.is(r.code, 1, args.join(' '));
    t.regex(r.stderr, message);
    t.is(r.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
    t.notRegex(r.stderr, /hunter2/);
  }
});

// `script` (util-linux, part of every Debian base system) gives the child a pseudo-terminal, as a person
// at a shell has.
test('on a terminal, migrate draws a progress bar instead of lines', async (t) => {
  const { dir, path } = await fileStoreWith(t, ['t1', 't2', 't3', 't4']);
  const cmd = [
    process.execPath,
    ...nodeArgs(join(root, 'bin', 'authctl.ts')),
    'avatars',
    'migrate',
    path,
    join(dir, 'copy'),
  ]
    .map((a) => `'${a}'`)
    .join(' ');
  const screen = await new Promise<string>((resolve, reject) =>
    execFile('script', ['-qec', cmd, '/dev/null'], { cwd: root, timeout: 60_000 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    ),
  );
  t.regex(screen, /\rmigrating \[#{30}\] 4\/4/);
  t.notRegex(screen, /copied /);
  t.regex(screen, /migrated 4 of 4 avatars/);
});
