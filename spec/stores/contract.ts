/**
 * The behaviour every AvatarStore shares, registered once per store kind so the file, LMDB and
 * GridFS stores are held to the same rows.
 */
import type { ExecutionContext, TestFn } from 'ava';
import { avatarId, type AvatarStore } from '../../lib/avatar/stores/index.js';
import { sha1 } from '../../lib/user.js';

/** Opens a fresh store for one test; a folder it needs can be the test's own (tempDir(t)), removed after the test. */
export type OpenStore = (t: ExecutionContext) => Promise<{ store: AvatarStore; cleanup?: () => Promise<void> }>;

const png = (n: number) => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(n, n % 251)]);

async function collect(store: AvatarStore) {
  const out = [];
  for await (const e of store.list()) out.push(e);
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

export function storeContract(test: TestFn, kind: string, open: OpenStore): void {
  const withStore = (name: string, body: (store: AvatarStore, t: ExecutionContext) => Promise<void>) =>
    test(`${kind}: ${name}`, async (t) => {
      const { store, cleanup } = await open(t);
      try {
        await body(store, t);
      } finally {
        await store.close();
        await cleanup?.();
      }
    });

  withStore('put returns sha1(user id).image and get returns the same bytes', async (store, t) => {
    const id = await store.put('user1', png(100));
    t.is(id, 'b3daa77b4c04a9551b8781d03191fe098f325e67.image');
    const got = await store.get(id);
    t.deepEqual(got?.data, png(100));
    t.regex(got!.etag, /^[0-9a-f]{40}$/);
  });

  withStore('a 40-hex user id and a <hash>.image id keep their hash', async (store, t) => {
    const hash = sha1('someone');
    t.is(await store.put(hash, png(1)), `${hash}.image`);
    t.is(await store.put(`${hash}.image`, png(2)), `${hash}.image`);
    t.deepEqual((await store.get(`${hash}.image`))?.data, png(2));
  });

  withStore('put replaces the avatar and changes its etag', async (store, t) => {
    const id = await store.put('user2', png(10));
    const first = await store.get(id);
    await store.put('user2', png(20));
    const second = await store.get(id);
    t.deepEqual(second?.data, png(20));
    t.not(second?.etag, first?.etag);
    t.is((await collect(store)).length, 1);
  });

  withStore('get of an unknown or malformed id is undefined', async (store, t) => {
    t.is(await store.get(avatarId('nobody')), undefined);
    t.is(await store.get('../../etc/passwd'), undefined);
    t.is(await store.get('zz.image'), undefined);
  });

  withStore('list reports id, size and modified time of every avatar', async (store, t) => {
    const before = Date.now() - 5_000;
    await store.put('a', png(5));
    await store.put('b', png(50));
    const list = await collect(store);
    t.deepEqual(
      list.map((e) => e.id),
      [avatarId('a'), avatarId('b')].sort(),
    );
    const sizes = Object.fromEntries(list.map((e) => [e.id, e.size]));
    t.is(sizes[avatarId('a')], png(5).length);
    t.is(sizes[avatarId('b')], png(50).length);
    for (const e of list) t.true(e.modified.getTime() >= before && e.modified.getTime() <= Date.now() + 5_000);
  });

  withStore('remove deletes the avatar; removing a missing one is fine', async (store, t) => {
    const id = await store.put('gone', png(3));
    await store.remove(id);
    t.is(await store.get(id), undefined);
    await t.notThrowsAsync(store.remove(id));
    t.deepEqual(await collect(store), []);
  });

  withStore('close twice is safe', async (store, t) => {
    await store.close();
    await t.notThrowsAsync(store.close());
  });
}
