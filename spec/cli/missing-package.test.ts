/**
 * Every authctl command that opens a backend whose package is not installed (pg, mongodb, ioredis) exits 1 with the
 * one line that names the argument, the package and `npm install <package>`: no resolver stack trace, no "Cannot
 * find package". The CLI runs as its own process, where a module hook (helpers/hide-packages.mjs, given through
 * NODE_OPTIONS) makes the package unresolvable, as in an app that never installed it.
 */
import test from 'ava';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const HIDE = join(ROOT, 'spec/helpers/hide-packages.mjs');

/** `authctl <args>` in a process where `pkg` cannot be found. */
const without = (pkg: string, args: string[]) =>
  runCli(args, { env: { NODE_OPTIONS: `--import=${HIDE}`, AUTHKOA_HIDE_PACKAGES: pkg } });

const line = (argument: string, pkg: string) =>
  `authctl: ${argument} needs the package "${pkg}", which is not installed: npm install ${pkg}\n`;

const PG = 'postgres://u:hunter2@127.0.0.1:1/db';
const MONGO = 'mongodb://127.0.0.1:1/db';
const REDIS = 'redis://127.0.0.1:1/0';

const CASES: Array<[pkg: string, args: (dir: string) => string[], argument: string]> = [
  ['pg', () => ['accounts', 'list', '--store', PG], '--store postgres://'],
  ['mongodb', () => ['accounts', 'list', '--store', MONGO], '--store mongodb://'],
  ['pg', () => ['accounts', 'create', 'ada@example.com', '--store', PG], '--store postgres://'],
  ['mongodb', () => ['accounts', 'links', 'ada@example.com', '--store', MONGO], '--store mongodb://'],
  ['pg', () => ['sessions', 'list', 'local_alice', '--store', PG], '--store postgres://'],
  ['ioredis', () => ['sessions', 'revoke', 'local_alice', '--store', REDIS], '--store redis://'],
  ['mongodb', () => ['mfa', 'status', 'local_alice', '--store', MONGO], '--store mongodb://'],
  ['ioredis', () => ['tokens', 'list', 'local_alice', '--store', REDIS], '--store redis://'],
  ['pg', () => ['passkeys', 'list', 'local_alice', '--store', PG], '--store postgres://'],
  ['ioredis', () => ['webhooks', 'list', '--store', REDIS], '--store redis://'],
  ['pg', () => ['oauth', 'clients', 'list', '--store', PG], '--store postgres://'],
  ['ioredis', () => ['oauth', 'grants', 'revoke', 'local_alice', 'agent', '--store', REDIS], '--store redis://'],
  ['pg', () => ['avatars', 'list', PG], '<store> postgres://'],
  ['mongodb', (dir) => ['avatars', 'migrate', dir, MONGO], '<to> mongodb://'],
  ['pg', () => ['db', 'migrate', PG], '<uri> postgres://'],
];

for (const [pkg, args, argument] of CASES) {
  test(`${args('').slice(0, 2).join(' ')} ${argument} without ${pkg} installed: exit 1, the one line naming it and npm install ${pkg}`, async (t) => {
    const r = await without(pkg, args(tempDir(t)));
    t.is(r.code, 1, r.stdout);
    t.is(r.stderr, line(argument, pkg));
    t.false(r.stderr.includes('hunter2'));
  });
}
