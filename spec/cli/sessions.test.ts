/** `authctl sessions revoke`: what it writes, and how it refuses bad arguments. */
import test from 'ava';
import { join } from 'node:path';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

test('revoke writes the user\'s not-before time into an LMDB store the apps share', async (t) => {
  const dir = tempDir(t, 'authkoa-sessions-');
  // The CLI reads its own clock somewhere between these two readings, however long a loaded machine
  // takes to start it: the record is checked against that interval, not against a guess of the delay.
  const before = Date.now();
  const res = await runCli(['sessions', 'revoke', 'local_abc', '--store', `lmdb://${join(dir, 'state')}`, '--cookie-duration', '1h']);
  const after = Date.now();
  t.is(res.code, 0, res.stderr);
  t.is(res.stdout, 'authctl sessions: sessions of local_abc issued up to now are revoked\n');
  const store = new LmdbStateStore(join(dir, 'state'));
  t.teardown(() => store.close());
  const entry = await store.get<{ notBefore: number }>('sessions', 'u:local_abc');
  const { notBefore } = entry!.value;
  t.true(notBefore >= Math.floor(before / 1000) && notBefore <= Math.floor(after / 1000), `revoked as of the CLI's now (${notBefore})`);
  const kept = entry!.expiresAt - 3_600_000;
  t.true(kept >= before && kept <= after, 'kept for --cookie-duration from the CLI\'s now');
});

test('revoke refuses a memory store, a bad URI (without echoing it) and a bad duration', async (t) => {
  const [memory, bad, duration, missing] = await Promise.all([
    runCli(['sessions', 'revoke', 'u', '--store', 'memory://']),
    runCli(['sessions', 'revoke', 'u', '--store', 'etcd://u:hunter2@h']),
    runCli(['sessions', 'revoke', 'u', '--store', 'lmdb:///tmp/x', '--cookie-duration', 'forever']),
    runCli(['sessions', 'revoke', 'u']),
  ]);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /--store must be the apps' shared store/);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /--store must be lmdb:\/\/<path>, redis:\/\/… or mongodb:\/\//);
  t.false(bad.stderr.includes('hunter2'));
  t.not(duration.code, 0);
  t.regex(duration.stderr, /--cookie-duration/);
  t.not(missing.code, 0);
  t.regex(missing.stderr, /required option '--store <uri>'/);
});
