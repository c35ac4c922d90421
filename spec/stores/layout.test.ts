/** The library refuses an avatarStore URI whose folder holds the other built-in store, at start-up. */
import { join } from 'node:path';
import test from 'ava';
import { authKoa } from '../../lib/index.js';
import { openStore } from '../../lib/avatar/stores/index.js';
import { tempDir } from '../helpers/temp.js';

const base = {
  secret: 'store-layout-secret-0123456789abcdef',
  url: 'http://127.0.0.1:1',
  providers: [{ kind: 'direct' as const, name: 'local', checker: () => true }],
};

test('avatarStore as a path on an LMDB folder rejects ready naming lmdb://; lmdb:// on a file store names file://', async (t) => {
  const dir = tempDir(t, 'authkoa-layout-');
  const lmdbDir = join(dir, 'lmdb-avatars');
  const fileDir = join(dir, 'file-avatars');
  for (const uri of [`lmdb://${lmdbDir}`, fileDir]) {
    const store = await openStore(uri);
    await store.put('alice', Buffer.from('x'));
    await store.close();
  }
  const cases: Array<[string, string]> = [
    [lmdbDir, `authKoa: avatarStore: ${lmdbDir} holds an LMDB store: use lmdb://${lmdbDir}`],
    [`file://${lmdbDir}`, `authKoa: avatarStore: ${lmdbDir} holds an LMDB store: use lmdb://${lmdbDir}`],
    [`lmdb://${fileDir}`, `authKoa: avatarStore: ${fileDir} holds a file store: use file://${fileDir}`],
  ];
  for (const [avatarStore, message] of cases) {
    const auth = authKoa({ ...base, avatarStore });
    await t.throwsAsync(auth.ready, { instanceOf: TypeError, message }, avatarStore);
    await auth.close();
  }
  for (const avatarStore of [`lmdb://${lmdbDir}`, fileDir, `lmdb://${join(dir, 'new')}`, join(dir, 'new-files')]) {
    const auth = authKoa({ ...base, avatarStore });
    await t.notThrowsAsync(auth.ready, avatarStore);
    await auth.close();
  }
});
