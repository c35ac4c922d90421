/**
 * A store option whose backend package is not installed (pg, mongodb, ioredis) fails at start-up with the one line
 * that names the option, the package and `npm install <package>`, for every store option: stateStore, mfa.store,
 * avatarStore, accounts.store and accounts.links. Each case runs in its own process, where a module hook
 * (helpers/hide-packages.mjs) makes the package unresolvable as in an app that never installed it.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/cli.js';
import { nodeArgs } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';

const run = promisify(execFile);
const HIDE = join(ROOT, 'spec/helpers/hide-packages.mjs');

/** What `auth.ready` settled with in a process where `hidden` cannot be found. */
async function readyWithout(
  hidden: string,
  stores: object,
): Promise<{ started?: true; message?: string; stack?: string }> {
  const { stdout } = await run(
    process.execPath,
    [`--import=${HIDE}`, ...nodeArgs('spec/state/fixtures/ready-with.ts'), JSON.stringify(stores)],
    { cwd: ROOT, env: { ...process.env, AUTHKOA_HIDE_PACKAGES: hidden }, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

const line = (option: string, scheme: string, pkg: string) =>
  `authKoa: ${option} ${scheme}:// needs the package "${pkg}", which is not installed: npm install ${pkg}`;

const CASES: Array<[option: string, pkg: string, scheme: string, stores: (dir: string) => object]> = [
  ['accounts.store', 'pg', 'postgres', () => ({ accounts: { store: 'postgres://u:hunter2@127.0.0.1:1/db' } })],
  ['accounts.store', 'mongodb', 'mongodb', () => ({ accounts: { store: 'mongodb://127.0.0.1:1/db' } })],
  [
    'accounts.links',
    'pg',
    'postgres',
    (dir) => ({ accounts: { store: `lmdb://${dir}/accounts`, links: 'postgres://u:hunter2@127.0.0.1:1/db' } }),
  ],
  [
    'accounts.links',
    'ioredis',
    'redis',
    (dir) => ({ accounts: { store: `lmdb://${dir}/accounts`, links: 'redis://127.0.0.1:1/0' } }),
  ],
  ['stateStore', 'pg', 'postgres', () => ({ stateStore: 'postgres://u:hunter2@127.0.0.1:1/db' })],
  ['mfa.store', 'ioredis', 'redis', () => ({ mfa: { store: 'redis://127.0.0.1:1/0' } })],
  ['avatarStore', 'mongodb', 'mongodb', () => ({ avatarStore: 'mongodb://127.0.0.1:1/db' })],
];

for (const [option, pkg, scheme, stores] of CASES) {
  test(`${option} ${scheme}:// without ${pkg} installed: auth.ready rejects with the one line naming ${option} and npm install ${pkg}`, async (t) => {
    const settled = await readyWithout(pkg, stores(tempDir(t)));
    t.is(settled.message, line(option, scheme, pkg));
    t.false(settled.stack!.includes('\n'), 'one line when printed, no resolver stack');
    t.false(settled.message!.includes('hunter2'));
  });
}
