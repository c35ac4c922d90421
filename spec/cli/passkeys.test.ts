/** `authctl passkeys list|remove` on the store a passkey provider writes. */
import test from 'ava';
import { join } from 'node:path';
import { statePasskeyStore } from '../../lib/providers/passkey/store.js';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

test("list shows a user's passkeys; remove takes one out, and a second remove says it is not there", async (t) => {
  const dir = tempDir(t, 'authkoa-passkeys-');
  const uri = `lmdb://${join(dir, 'passkeys')}`;
  const state = new LmdbStateStore(join(dir, 'passkeys'));
  const passkeys = statePasskeyStore(state);
  const base = {
    publicKey: 'cHVi',
    counter: 0,
    userName: 'alice',
    userHandle: 'h',
    deviceType: 'multiDevice',
    backedUp: true,
  };
  await passkeys.save({ ...base, id: 'cred-one', userId: 'dev_alice', createdAt: Date.UTC(2026, 10, 1) });
  await passkeys.save({
    ...base,
    id: 'cred-two',
    userId: 'dev_alice',
    createdAt: Date.UTC(2026, 10, 2),
    lastUsedAt: Date.UTC(2026, 10, 3),
    device: 'Chrome on macOS',
  });
  await passkeys.save({ ...base, id: 'cred-bob', userId: 'dev_bob', createdAt: Date.UTC(2026, 10, 4) });
  await state.close();

  const list = await runCli(['passkeys', 'list', 'dev_alice', '--store', uri]);
  t.is(list.code, 0, list.stderr);
  t.is(
    list.stdout,
    'cred-one  created 2026-11-01T00:00:00.000Z  last used never  multiDevice\n' +
      'cred-two  created 2026-11-02T00:00:00.000Z  last used 2026-11-03T00:00:00.000Z  multiDevice  "Chrome on macOS"\n' +
      '2 passkeys of dev_alice\n',
  );
  const json = await runCli(['passkeys', 'list', 'dev_bob', '--store', uri, '--json']);
  t.deepEqual(JSON.parse(json.stdout), [
    {
      id: 'cred-bob',
      createdAt: '2026-11-04T00:00:00.000Z',
      lastUsedAt: null,
      deviceType: 'multiDevice',
      backedUp: true,
      device: null,
    },
  ]);

  const removed = await runCli(['passkeys', 'remove', 'cred-one', '--store', uri]);
  t.is(removed.code, 0, removed.stderr);
  t.is(removed.stdout, 'authctl passkeys: removed cred-one of dev_alice\n');
  t.regex(
    (await runCli(['passkeys', 'list', 'dev_alice', '--store', uri])).stdout,
    /^cred-two .*\n1 passkey of dev_alice\n$/,
  );
  const again = await runCli(['passkeys', 'remove', 'cred-one', '--store', uri]);
  t.is(again.code, 1);
  t.regex(again.stderr, /no passkey cred-one in that store/);
  const memory = await runCli(['passkeys', 'list', 'x', '--store', 'memory://']);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /memory:\/\/ is one process's own/);
});
