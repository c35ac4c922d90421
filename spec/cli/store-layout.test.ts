/**
 * `authctl avatars` on a folder that holds the other built-in store: an error naming the URI that opens
 * it, exit 1, instead of "total: 0 avatars" (a bare path means a file store) or a fresh LMDB written
 * into a file store's folder.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import test from 'ava';
import { openStore } from '../../lib/avatar/stores/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

/** A store of `uri` holding one avatar, closed again. */
async function storeWithOne(uri: string): Promise<string> {
  const store = await openStore(uri);
  const id = await store.put('alice', Buffer.from('picture of alice'));
  await store.close();
  return id;
}

test('avatars list with a bare path on an LMDB folder: exit 1 naming the lmdb:// URI, which then lists it', async (t) => {
  const dir = tempDir(t, 'authkoa-layout-');
  const avatars = join(dir, 'var', 'avatars');
  const id = await storeWithOne(`lmdb://${avatars}`);
  // The path as a user types it in the demo's folder: relative to where authctl runs.
  const typed = `./${relative(ROOT, avatars)}`;
  for (const [uri, path] of [
    [typed, typed],
    [`file://${avatars}`, avatars],
  ] as const) {
    const r = await runCli(['avatars', 'list', uri]);
    t.is(r.code, 1, uri);
    t.is(r.stdout, '', uri);
    t.true(r.stderr.includes(`${path} holds an LMDB store: use lmdb://${avatars}`), r.stderr);
  }
  const right = await runCli(['avatars', 'list', `lmdb://${avatars}`]);
  t.is(right.code, 0, right.stderr);
  t.regex(right.stdout, new RegExp(`^${id} `, 'm'));
  t.regex(right.stdout, /total: 1 avatars/);
});

test('lmdb:// (and bolt://) on a file store folder: exit 1 naming the file:// URI, and no LMDB written there', async (t) => {
  const dir = tempDir(t, 'authkoa-layout-');
  const avatars = join(dir, 'avatars');
  await storeWithOne(avatars);
  for (const uri of [`lmdb://${avatars}`, `bolt://${avatars}`]) {
    const r = await runCli(['avatars', 'list', uri]);
    t.is(r.code, 1, uri);
    t.true(r.stderr.includes(`${avatars} holds a file store: use file://${avatars}`), r.stderr);
  }
  const migrated = await runCli(['avatars', 'migrate', join(dir, 'elsewhere'), `lmdb://${avatars}`]);
  t.is(migrated.code, 1);
  t.false(existsSync(join(avatars, 'data.mdb')), 'the LMDB was not created inside the file store');
  const right = await runCli(['avatars', 'list', `file://${avatars}`]);
  t.is(right.code, 0, right.stderr);
  t.regex(right.stdout, /total: 1 avatars/);
});
