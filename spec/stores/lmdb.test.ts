import test from 'ava';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { open } from 'lmdb';
import { avatarId, openStore } from '../../lib/avatar/stores/index.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { LmdbStore } from '../../lib/avatar/stores/lmdb.js';
import { sha1 } from '../../lib/user.js';
import { forkTarget } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { storeContract } from './contract.js';

const PREFIX = 'authkoa-lmdb-';

storeContract(test, 'lmdb store', async (t) => ({ store: new LmdbStore(join(tempDir(t, PREFIX), 'ava')) }));

test('bolt:// opens the same LMDB store as lmdb:// (alias for users of the original)', async (t) => {
  const dir = tempDir(t, PREFIX);
  const a = await openStore(`lmdb://${dir}/ava`);
  const id = await a.put('user1', Buffer.from('one'));
  await a.close();
  const b = await openStore(`bolt://${dir}/ava`);
  t.is((await b.get(id))?.data.toString(), 'one');
  t.is(String(b), `lmdb store at ${dir}/ava`);
  await b.close();
});

test('lmdb store etag is the sha1 of the bytes, as the original Bolt store', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = new LmdbStore(join(dir, 'ava'));
  const id = await store.put('u', Buffer.from('bytes'));
  t.is((await store.get(id))?.etag, sha1(Buffer.from('bytes')));
  await store.close();
});

test('lmdb store holds 10 000 avatars and lists them all', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = new LmdbStore(join(dir, 'ava'));
  const n = 10_000;
  for (let i = 0; i < n; i += 500) {
    await Promise.all(Array.from({ length: 500 }, (_, k) => store.put(`user${i + k}`, Buffer.from(`avatar ${i + k}`))));
  }
  let count = 0;
  for await (const e of store.list()) {
    count++;
    if (e.size <= 0) t.fail(e.id);
  }
  t.is(count, n);
  t.is((await store.get(avatarId('user4242')))?.data.toString(), 'avatar 4242');
  await store.close();
});

test('two processes write and read one LMDB store at the same time', async (t) => {
  const dir = tempDir(t, PREFIX);
  const path = join(dir, 'ava');
  const store = new LmdbStore(path);
  const n = 300;
  // The child writes child0..N while this process writes parent0..N; each then reads the other's.
  const writer = forkTarget(join(import.meta.dirname, 'fixtures', 'lmdb-writer.ts'));
  const child = fork(writer.modulePath, [path, String(n)], { execArgv: writer.execArgv });
  const childDone = new Promise<number>((resolve, reject) => {
    child.on('message', (m) => resolve((m as { sawParent: number }).sawParent));
    child.on('error', reject);
    child.on('exit', (code) => code !== 0 && reject(new Error(`child exited ${code}`)));
  });
  for (let i = 0; i < n; i++) await store.put(`parent${i}`, Buffer.from(`p${i}`));
  const sawParent = await childDone;
  t.true(sawParent >= 0);
  for (let i = 0; i < n; i++)
    t.is((await store.get(avatarId(`child${i}`)))?.data.toString(), `c${i}`) || t.fail(`child${i}`);
  let count = 0;
  for await (const _ of store.list()) count++;
  t.is(count, 2 * n);
  await store.close();
});

// lmdb-js's default overlappingSync finishes a commit after the writer lock is released; under load the
// two-process test above failed once in ten runs with MDB_BAD_TXN (mdb_page_touch no parent). The race
// itself is too rare to provoke on demand, so this checks the setting that avoids it, on both backends.
// Opening a path this process already has open returns that environment, with the flags it was opened with.
test('the avatar and state LMDB environments are opened without overlappingSync (it raced between processes)', async (t) => {
  const dir = tempDir(t, PREFIX);
  // lmdb-js keeps the effective setting on the opened database; its type declarations leave it out.
  const overlapping = (db: object) => (db as { overlappingSync?: boolean }).overlappingSync;
  const avatars = new LmdbStore(join(dir, 'avatars'));
  const state = new LmdbStateStore(join(dir, 'state'));
  t.is(overlapping(open({ path: join(dir, 'avatars') })), false);
  t.is(overlapping(open({ path: join(dir, 'state') })), false);
  // What lmdb-js does when nobody chose: the setting this test would miss if the reuse above did not hold.
  const other = open({ path: join(dir, 'other') });
  t.is(overlapping(other), true);
  await other.close();
  await avatars.close();
  await state.close();
});
