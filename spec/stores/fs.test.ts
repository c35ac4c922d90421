import test from 'ava';
import { fork } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { avatarId, openStore } from '../../lib/avatar/stores/index.js';
import { FileStore } from '../../lib/avatar/stores/file.js';
import { forkTarget } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { storeContract } from './contract.js';

const PREFIX = 'authkoa-fs-';
const writer = forkTarget(join(import.meta.dirname, 'fixtures', 'crash-writer.ts'));

storeContract(test, 'file store', async (t) => ({ store: new FileStore(tempDir(t, PREFIX)) }));

test('file store uses the original partitioned layout (user1 → 30/, user2 → 84/)', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = await openStore(`file://${dir}`);
  await store.put('user1', Buffer.from('x'));
  await store.put('user2', Buffer.from('y'));
  t.true(existsSync(join(dir, '30', 'b3daa77b4c04a9551b8781d03191fe098f325e67.image')));
  t.true(existsSync(join(dir, '84', `${avatarId('user2')}`)));
  t.true(avatarId('user2').startsWith('a1881c06'));
});

test('file store reads avatars written by the original (a folder laid out by hand)', async (t) => {
  const dir = tempDir(t, PREFIX);
  const id = avatarId('user1');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(join(dir, '30'));
  writeFileSync(join(dir, '30', id), 'legacy');
  const store = new FileStore(dir);
  t.is((await store.get(id))?.data.toString(), 'legacy');
});

test('a crash between write and rename leaves no partial avatar and keeps the old one', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = new FileStore(dir);
  const id = await store.put('victim', Buffer.from('old avatar'));
  // The child writes a new avatar and is SIGKILLed after the temp file is synced, before the rename.
  const child = fork(writer.modulePath, [dir, 'victim'], {
    execArgv: writer.execArgv,
    stdio: 'ignore',
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
  t.is(signal, 'SIGKILL');
  const folder = join(dir, readdirSync(dir)[0]!); // the one partition written so far
  t.true(
    readdirSync(folder).some((n) => n.endsWith('.tmp')),
    'the temp file was written before the crash',
  );
  t.is((await store.get(id))?.data.toString(), 'old avatar');
  const listed = [];
  for await (const e of store.list()) listed.push(e.id);
  t.deepEqual(listed, [id]);
  // A fresh, never-renamed avatar is simply absent.
  const child2 = fork(writer.modulePath, [dir, 'newcomer'], {
    execArgv: writer.execArgv,
    stdio: 'ignore',
  });
  await new Promise((resolve) => child2.on('exit', resolve));
  t.is(await store.get(avatarId('newcomer')), undefined);
});

test('file store holds 10 000 avatars and lists them all', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = new FileStore(dir);
  const n = 10_000;
  const ids = new Set<string>();
  for (let i = 0; i < n; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: 100 }, (_, k) => store.put(`user${i + k}`, Buffer.from(`avatar ${i + k}`))),
    );
    batch.forEach((id) => ids.add(id));
  }
  let count = 0;
  let bytes = 0;
  for await (const e of store.list()) {
    t.true(ids.has(e.id), e.id) || t.fail();
    count++;
    bytes += e.size;
  }
  t.is(count, n);
  t.true(bytes > 0);
  t.is((await store.get(avatarId('user9999')))?.data.toString(), 'avatar 9999');
  t.is(readdirSync(dir).length, 100, 'spread over the 100 partitions');
});

test('a partition folder removed between writes is made again', async (t) => {
  const dir = tempDir(t, PREFIX);
  const store = new FileStore(dir);
  await store.put('user1', Buffer.from('a'));
  rmSync(join(dir, '30'), { recursive: true });
  await store.put('user1', Buffer.from('b'));
  t.is((await store.get(avatarId('user1')))?.data.toString(), 'b');
});
