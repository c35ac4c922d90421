import test from 'ava';
import { join } from 'node:path';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { LmdbStore } from '../../lib/avatar/stores/lmdb.js';
import { avatarId, migrate, openStore, parseStoreUri, type AvatarStore } from '../../lib/avatar/stores/index.js';
import { startMongo } from '../helpers/mongo.js';
import { tempDir } from '../helpers/temp.js';

const PREFIX = 'authkoa-migrate-';

async function contents(store: AvatarStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of store.list()) out[e.id] = (await store.get(e.id))!.data.toString('hex');
  return out;
}

test('migrate file → lmdb → file keeps ids and bytes', async (t) => {
  const dir = tempDir(t, PREFIX);
  const fs1 = new FileStore(join(dir, 'fs1'));
  for (let i = 0; i < 50; i++) await fs1.put(`user${i}`, Buffer.from(`picture ${i}`));
  const lm = new LmdbStore(join(dir, 'lmdb'));
  const progress: number[] = [];
  const r1 = await migrate(fs1, lm, { onProgress: (done) => progress.push(done), concurrency: 1 });
  t.deepEqual(r1, { total: 50, copied: 50, failed: [] });
  t.deepEqual(
    progress,
    Array.from({ length: 50 }, (_, i) => i + 1),
  );
  const expected = await contents(fs1);
  t.deepEqual(await contents(lm), expected);
  t.true(avatarId('user7') in expected);

  const r2 = await migrate(lm, `file://${join(dir, 'fs2')}`);
  t.is(r2.copied, 50);
  t.deepEqual(await contents(new FileStore(join(dir, 'fs2'))), expected);
  await lm.close();
});

test('migrate 10 000 avatars from lmdb into a file store', async (t) => {
  const dir = tempDir(t, PREFIX);
  const lm = new LmdbStore(join(dir, 'lmdb'));
  for (let i = 0; i < 10_000; i += 1000)
    await Promise.all(Array.from({ length: 1000 }, (_, k) => lm.put(`u${i + k}`, Buffer.from(`${i + k}`))));
  const r = await migrate(lm, join(dir, 'fs'));
  t.deepEqual(r, { total: 10_000, copied: 10_000, failed: [] });
  const fs = await openStore(join(dir, 'fs'));
  t.is((await fs.get(avatarId('u1234')))?.data.toString(), '1234');
  await lm.close();
});

test('migrate skips and reports an avatar that cannot be read', async (t) => {
  const dir = tempDir(t, PREFIX);
  const src = new FileStore(join(dir, 'src'));
  await src.put('ok', Buffer.from('fine'));
  await src.put('bad', Buffer.from('broken'));
  const flaky: AvatarStore = {
    put: (u, b) => src.put(u, b),
    get: async (id) => (id === avatarId('bad') ? Promise.reject(new Error('disk error')) : src.get(id)),
    remove: (id) => src.remove(id),
    list: () => src.list(),
    close: async () => {},
  };
  const errors: string[] = [];
  const r = await migrate(flaky, new FileStore(join(dir, 'dst')), { onError: (id) => errors.push(id) });
  t.is(r.copied, 1);
  t.deepEqual(r.failed, [avatarId('bad')]);
  t.deepEqual(errors, [avatarId('bad')]);
});

// GridFS side: CongoDB, a MongoDB wire-protocol stand-in for mongod (see spec/helpers/mongo.ts).
test('migrate lmdb → gridfs → file keeps ids and bytes', async (t) => {
  const mongo = await startMongo();
  const dir = tempDir(t, PREFIX);
  const lm = new LmdbStore(join(dir, 'lmdb'));
  for (let i = 0; i < 20; i++) await lm.put(`user${i}`, Buffer.from(`gridfs ${i}`));
  const uri = mongo.uriWith({ ava_db: `mig`, ava_coll: 'av' });
  t.is((await migrate(lm, uri)).copied, 20);
  t.is((await migrate(uri, join(dir, 'fs'))).copied, 20);
  t.deepEqual(await contents(new FileStore(join(dir, 'fs'))), await contents(lm));
  await lm.close();
  await mongo.stop();
});

test('store URIs: paths, file://, lmdb://, bolt:// and mongodb:// are recognised', (t) => {
  t.deepEqual(parseStoreUri('./var/avatars'), { kind: 'file', path: './var/avatars', uri: './var/avatars' });
  t.deepEqual(parseStoreUri('file:///var/avatars'), { kind: 'file', path: '/var/avatars', uri: 'file:///var/avatars' });
  t.deepEqual(parseStoreUri('lmdb://var/ava'), { kind: 'lmdb', path: 'var/ava', uri: 'lmdb://var/ava' });
  t.deepEqual(parseStoreUri('bolt:///data/ava.db'), { kind: 'lmdb', path: '/data/ava.db', uri: 'bolt:///data/ava.db' });
  t.deepEqual(parseStoreUri('mongodb+srv://h/db?ava_db=x'), { kind: 'mongodb', uri: 'mongodb+srv://h/db?ava_db=x' });
});

test('a bad store URI throws a TypeError naming the option and the scheme, not the password', async (t) => {
  const e = t.throws(() => parseStoreUri('redis://user:hunter2@h/0'), { instanceOf: TypeError });
  t.regex(e!.message, /avatarStore/);
  t.regex(e!.message, /"redis:\/\/"/);
  t.notRegex(e!.message, /hunter2/);
  await t.throwsAsync(openStore('lmdb://'), { instanceOf: TypeError, message: /avatarStore.*lmdb/ });
  await t.throwsAsync(openStore({} as AvatarStore), { instanceOf: TypeError, message: /avatarStore/ });
});
