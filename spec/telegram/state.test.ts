import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStateStore, memoryStateStore, openStateStore } from '../../lib/state/index.js';
import { parseStateUri } from '../../lib/state/open.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { MongoStateStore } from '../../lib/state/mongodb.js';
import { forkTarget } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { stateStoreContract } from '../state/state-contract.js';
import { limiterContract } from '../state/limiter-contract.js';

stateStoreContract(test, 'memory', async (clock) => memoryStateStore({ clock }));

stateStoreContract(test, 'lmdb', async (clock, t) => new LmdbStateStore(join(tempDir(t), 'state'), { clock }));

stateStoreContract(test, 'createStateStore (lazy lmdb)', async (clock, t) =>
  createStateStore(`lmdb://${join(tempDir(t), 'state')}`, { clock }),
);

limiterContract(test, 'memory', async (clock) => memoryStateStore({ clock }));

limiterContract(test, 'lmdb', async (clock, t) => new LmdbStateStore(join(tempDir(t), 'state'), { clock }));

test('memory: values are copied in; nested data comes out frozen, a flat record as a copy', async (t) => {
  const store = memoryStateStore();
  const value = { list: [1] };
  await store.create('ns', 'k', value, Date.now() + 1000);
  value.list.push(2);
  const got = (await store.get<{ list: number[] }>('ns', 'k'))!;
  // Modules are strict: writing to what the store handed out throws, and what it holds stays.
  t.throws(() => got.value.list.push(3), { instanceOf: TypeError });
  t.throws(() => Object.assign(got, { rev: 'x' }), { instanceOf: TypeError });
  t.deepEqual((await store.get('ns', 'k'))?.value, { list: [1] });
  // A flat record (the throttle's, a counter) is copied out instead: the copy is the caller's to change.
  await store.create('ns', 'flat', { n: 1, until: 0 }, Date.now() + 1000);
  const flat = (await store.get<{ n: number }>('ns', 'flat'))!;
  flat.value.n = 5;
  t.deepEqual((await store.get('ns', 'flat'))?.value, { n: 1, until: 0 });
});

test('memory: nested records are copied, a record read and written back is kept as it is, and what is not plain data (a Date, a cycle) is copied whole', async (t) => {
  const store = memoryStateStore();
  const list = { list: [{ sid: 'a', amr: ['pwd'] }] };
  await store.create('ns', 'list', list, Date.now() + 1000);
  list.list[0]!.amr.push('otp');
  const got = (await store.get<typeof list>('ns', 'list'))!;
  t.throws(() => got.value.list[0]!.amr.push('hwk'), { instanceOf: TypeError });
  t.deepEqual((await store.get('ns', 'list'))?.value, { list: [{ sid: 'a', amr: ['pwd'] }] });
  // Written back with one record more: the record read is shared, the new one is copied (a change to it
  // after the write does not reach the store).
  const added = { sid: 'b', amr: ['hwk'] };
  t.true(await store.replace('ns', 'list', got.rev, { list: [...got.value.list, added] }, Date.now() + 1000));
  added.amr.push('otp');
  const again = (await store.get<typeof list>('ns', 'list'))!.value;
  t.is(again.list[0], got.value.list[0]);
  t.not(again.list[1], added);
  t.deepEqual(again, {
    list: [
      { sid: 'a', amr: ['pwd'] },
      { sid: 'b', amr: ['hwk'] },
    ],
  });
  // A record frozen by the caller is still copied: only what this store froze is shared.
  const foreign = Object.freeze({ sid: 'c', amr: ['pwd'] });
  await store.create('ns', 'foreign', { list: [foreign] }, Date.now() + 1000);
  foreign.amr.push('otp');
  t.deepEqual((await store.get('ns', 'foreign'))?.value, { list: [{ sid: 'c', amr: ['pwd'] }] });
  const when = new Date(0);
  await store.create('ns', 'date', { at: [when] }, Date.now() + 1000);
  const at = (await store.get<{ at: Date[] }>('ns', 'date'))!.value.at[0]!;
  t.true(at instanceof Date && at !== when && at.getTime() === 0);
  const cyclic: Record<string, unknown> = { n: 1 };
  cyclic.self = cyclic;
  await store.create('ns', 'cycle', cyclic, Date.now() + 1000);
  const back = (await store.get<Record<string, unknown>>('ns', 'cycle'))!.value;
  t.true(back !== cyclic && back.self === back);
});

test('memory: a key taken or removed is gone for every call and from size, and can be written again', async (t) => {
  let now = 1_000_000;
  const store = memoryStateStore({ clock: () => now });
  await store.create('ns', 'a', 1, now + 10);
  await store.create('ns', 'b', 2, now + 10);
  const a = (await store.get('ns', 'a'))!;
  t.true(await store.take('ns', 'a', a.rev));
  await store.remove('ns', 'b');
  await store.remove('ns', 'never');
  t.is(store.size, 0);
  t.is(await store.get('ns', 'a'), undefined);
  t.false(await store.take('ns', 'a', a.rev));
  t.false(await store.take('ns', 'a', ''));
  t.false(await store.replace('ns', 'b', a.rev, 3, now + 10));
  t.true(await store.create('ns', 'a', 4, now + 10));
  t.is(store.size, 1);
  t.is((await store.get('ns', 'a'))?.value, 4);
  now += 10;
  t.is(await store.sweep(), 1, 'the expired entry, not the removed one');
  t.is(store.size, 0);
});

test('memory: expired entries are swept every sweepEvery creates', async (t) => {
  let now = 1_000_000;
  const store = memoryStateStore({ clock: () => now, sweepEvery: 4 });
  for (let i = 0; i < 3; i++) await store.create('ns', `k${i}`, i, now + 10);
  now += 10;
  t.is(store.size, 3);
  await store.create('ns', 'k3', 3, now + 10);
  t.is(store.size, 1);
});

test('memory: a large map is swept every quarter of its size in creates, not every sweepEvery', async (t) => {
  // A sweep visits every entry: swept every create, a map of tens of thousands of ended sessions made
  // each login pay for all of them. With sweepEvery 1, a small map still goes at once (above).
  let now = 1_000_000;
  const store = memoryStateStore({ clock: () => now, sweepEvery: 1 });
  for (let i = 0; i < 400; i++) await store.create('ns', `old${i}`, i, now + 10);
  now += 10;
  let creates = 0;
  while (store.size > 100 + creates && creates < 400) await store.create('ns', `new${creates++}`, 0, now + 10);
  t.true(creates > 1, 'not swept at the first create after the expiry');
  t.true(creates <= 101, `swept within a quarter of the map's size in creates (took ${creates})`);
  t.is(store.size, creates, 'then only the live entries are left');
});

test('LMDB: two processes racing markUsed and create on one environment: exactly one wins each', async (t) => {
  const path = join(tempDir(t), 'state');
  const racer = forkTarget(fileURLToPath(new URL('./fixtures/state-racer.ts', import.meta.url)));
  const children = Array.from({ length: 4 }, () =>
    fork(racer.modulePath, [path], { execArgv: racer.execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }),
  );
  t.teardown(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));
  // A child's next message; it reports twice: `ready` (tsx loaded, store open), then its results.
  const next = (child: ChildProcess) =>
    new Promise<unknown>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`racer exited with ${code}`));
      child.once('exit', exited);
      child.once('message', (m) => {
        child.off('exit', exited);
        resolve(m);
      });
    });
  t.deepEqual(
    await Promise.all(children.map(next)),
    children.map(() => 'ready'),
  );
  // Every child is loaded and waiting: they start writing together.
  const reports = children.map(next);
  for (const child of children) child.send('go');
  const results = (await Promise.all(reports)) as Array<{ used: boolean[]; created: boolean[] }>;
  t.is(results.flatMap((r) => r.used).filter(Boolean).length, 1, 'markUsed');
  t.is(results.flatMap((r) => r.created).filter(Boolean).length, 1, 'create');
});

test('openStateStore: memory://, lmdb://path, a store object; bad URIs are TypeErrors without the URI', async (t) => {
  const dir = tempDir(t);
  const mem = await openStateStore('memory://');
  t.true(await mem.create('ns', 'k', 1, Date.now() + 1000));
  await mem.close();
  const lmdb = await openStateStore(`lmdb://${join(dir, 'x')}`);
  t.true(lmdb instanceof LmdbStateStore);
  await lmdb.close();
  const obj = memoryStateStore();
  t.is(await openStateStore(obj), obj);
  t.deepEqual(parseStateUri('lmdb://var/state'), { kind: 'lmdb', path: 'var/state', uri: 'lmdb://var/state' });
  t.deepEqual(parseStateUri('lmdb:///var/state'), { kind: 'lmdb', path: '/var/state', uri: 'lmdb:///var/state' });
  t.deepEqual(parseStateUri('mongodb://u:p@h/db'), { kind: 'mongodb', uri: 'mongodb://u:p@h/db' });
  const err = t.throws(() => parseStateUri('etcd://user:hunter2@h'), { instanceOf: TypeError });
  t.false(err!.message.includes('hunter2'));
  t.throws(() => parseStateUri('/just/a/path'), { instanceOf: TypeError });
  await t.throwsAsync(() => openStateStore({} as never), { instanceOf: TypeError });
  t.is(typeof MongoStateStore.open, 'function');
});
