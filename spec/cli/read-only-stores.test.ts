/**
 * The read-only authctl commands (the lists and the status) never create a store: given a path that holds none (a
 * typo, the wrong folder), each exits 1 naming the argument and the path, and leaves nothing behind, where it used to
 * create an empty LMDB environment there and answer "none". The commands that write (revoke, create) still create
 * the store they are pointed at. Each command runs as its own process, as an operator runs it.
 */
import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbStateStore } from '../../lib/state/lmdb.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const NEVER = '(read-only commands never create one)';

/** Each read-only command that takes a store, with `uri` as that store, and the argument its error names. */
const READERS: Array<[name: string, args: (uri: string) => string[], argument: string]> = [
  ['sessions list', (uri) => ['sessions', 'list', 'local_alice', '--store', uri], '--store'],
  ['tokens list', (uri) => ['tokens', 'list', 'local_alice', '--store', uri], '--store'],
  ['passkeys list', (uri) => ['passkeys', 'list', 'local_alice', '--store', uri], '--store'],
  ['mfa status', (uri) => ['mfa', 'status', 'local_alice', '--store', uri], '--store'],
  ['webhooks list', (uri) => ['webhooks', 'list', '--store', uri], '--store'],
  ['accounts list', (uri) => ['accounts', 'list', '--store', uri], '--store'],
  ['accounts links (a user id)', (uri) => ['accounts', 'links', 'github_1', '--store', uri], '--store'],
  ['accounts links (an address)', (uri) => ['accounts', 'links', 'ada@example.com', '--store', uri], '--store'],
  ['avatars list', (uri) => ['avatars', 'list', uri], '<store>'],
];

for (const [name, args, argument] of READERS) {
  test(`${name} on an lmdb:// path that holds no store: exit 1 naming ${argument} and the path, nothing created`, async (t) => {
    const dir = tempDir(t);
    const uri = `lmdb://${join(dir, 'stat')}`;
    const r = await runCli(args(uri));
    t.is(r.code, 1, r.stdout);
    t.is(r.stderr, `authctl: ${argument} ${uri}: no store there ${NEVER}\n`);
    t.is(r.stdout, '', 'no "none" answer');
    t.deepEqual(readdirSync(dir), [], 'no file or folder left behind');
  });
}

test('accounts links with --links at a path that holds no store, the accounts store being there: exit 1 naming --links', async (t) => {
  const dir = tempDir(t);
  const accounts = join(dir, 'accounts');
  const made = await runCli(['accounts', 'create', 'ada@example.com', '--store', `lmdb://${accounts}`]);
  t.is(made.code, 0, made.stderr);
  const links = `lmdb://${join(dir, 'links-typo')}`;
  const r = await runCli(['accounts', 'links', 'ada@example.com', '--store', `lmdb://${accounts}`, '--links', links]);
  t.is(r.code, 1, r.stdout);
  t.is(r.stderr, `authctl: --links ${links}: no store there ${NEVER}\n`);
  t.false(existsSync(join(dir, 'links-typo')));
});

test('avatars list on a file store folder that is not there: exit 1 naming <store> and the folder, nothing created', async (t) => {
  const dir = tempDir(t);
  const folder = join(dir, 'avatarz');
  const r = await runCli(['avatars', 'list', folder]);
  t.is(r.code, 1, r.stdout);
  t.is(r.stderr, `authctl: <store> ${folder}: no store there ${NEVER}\n`);
  t.deepEqual(readdirSync(dir), []);
});

test('a read-only command on a store that is there but empty still answers "none", exit 0', async (t) => {
  const path = join(tempDir(t), 'state');
  await new LmdbStateStore(path).close();
  const r = await runCli(['sessions', 'list', 'local_alice', '--store', `lmdb://${path}`]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'authctl sessions: no live sessions of local_alice\n');
});

test('the writing commands still create the store they are pointed at', async (t) => {
  const dir = tempDir(t);
  const state = join(dir, 'state');
  const revoked = await runCli(['sessions', 'revoke', 'local_alice', '--store', `lmdb://${state}`]);
  t.is(revoked.code, 0, revoked.stderr);
  t.true(existsSync(state));
  const accounts = join(dir, 'accounts');
  const created = await runCli(['accounts', 'create', 'ada@example.com', '--store', `lmdb://${accounts}`]);
  t.is(created.code, 0, created.stderr);
  t.true(existsSync(accounts));
});
