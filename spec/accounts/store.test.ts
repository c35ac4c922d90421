/**
 * The account stores against the AccountStore contract (store-contract.ts): memory, and LMDB on real files,
 * with two `node` processes racing one sign-up address on one environment.
 */
import test from 'ava';
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lmdbAccountStore } from '../../lib/accounts/lmdb-store.js';
import { memoryAccountStore } from '../../lib/accounts/memory-store.js';
import { openAccountStore } from '../../lib/accounts/open.js';
import { normalizeEmail } from '../../lib/accounts/store.js';
import { forkTarget } from '../helpers/source.js';
import { tempDir } from '../helpers/temp.js';
import { account, accountStoreContract } from './store-contract.js';

accountStoreContract(test, 'memory', () => Promise.resolve(memoryAccountStore()));
accountStoreContract(test, 'LMDB', (t) => Promise.resolve(lmdbAccountStore(join(tempDir(t), 'accounts'))));

test('the memory store says it is volatile; LMDB does not', async (t) => {
  const mem = memoryAccountStore();
  const lmdb = lmdbAccountStore(join(tempDir(t), 'accounts'));
  t.teardown(() => Promise.all([mem.close(), lmdb.close()]));
  t.true(mem.volatile);
  t.falsy(lmdb.volatile);
});

test('LMDB: accounts outlive the store that wrote them', async (t) => {
  const path = join(tempDir(t), 'accounts');
  const a = account();
  const first = lmdbAccountStore(path);
  await first.create(a);
  await first.close();
  const second = lmdbAccountStore(path);
  t.teardown(() => second.close());
  t.is((await second.findByEmail(a.email))?.id, a.id);
});

test('LMDB: two processes racing sign-ups with one address on one environment: exactly one creates', async (t) => {
  const path = join(tempDir(t), 'accounts');
  const racer = forkTarget(fileURLToPath(new URL('./fixtures/signup-racer.ts', import.meta.url)));
  const children = Array.from({ length: 2 }, (_, i) =>
    fork(racer.modulePath, [path, String(i)], {
      execArgv: racer.execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  t.teardown(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));
  const next = (child: ChildProcess) =>
    new Promise<unknown>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`racer exited with ${code}`));
      child.once('exit', exited);
      child.once('message', (m) => {
        child.off('exit', exited);
        resolve(m);
      });
    });
  t.deepEqual(await Promise.all(children.map(next)), ['ready', 'ready']);
  const reports = children.map(next);
  for (const child of children) child.send('go');
  const created = ((await Promise.all(reports)) as boolean[][]).flat();
  t.is(created.length, 20);
  t.is(created.filter(Boolean).length, 1);
  const store = lmdbAccountStore(path);
  t.teardown(() => store.close());
  t.deepEqual(
    (await store.list()).map((a) => a.email),
    ['race@example.com'],
  );
});

test('normalizeEmail: one plain address, trimmed and lower-cased; anything a parser could read two ways is refused', (t) => {
  t.is(normalizeEmail('  Ada.Lovelace@Example.COM '), 'ada.lovelace@example.com');
  t.is(normalizeEmail('a+tag@sub.example.org'), 'a+tag@sub.example.org');
  for (const bad of [
    '',
    'no-at-sign',
    '@example.com',
    'a@b@example.com',
    'a@localhost',
    'a@example.',
    'a@.example.com',
    '"quoted"@example.com',
    'Ada <ada@example.com>',
    'ada@example.com (comment)',
    'a,b@example.com',
    'ada@exa mple.com',
    'ada@example.com\r\nBcc: x@example.com',
    `${'x'.repeat(65)}@example.com`,
    `a@${'d'.repeat(250)}.com`,
    42,
    undefined,
  ])
    t.is(normalizeEmail(bad), undefined, String(bad));
});

test('openAccountStore: memory:// and lmdb://path open their stores, an object is kept, anything else names the option', async (t) => {
  const mem = await openAccountStore('memory://');
  t.true(mem.volatile);
  await mem.close();
  const lmdb = await openAccountStore(`lmdb://${join(tempDir(t), 'accounts')}`);
  t.teardown(() => lmdb.close());
  t.true(await lmdb.create(account()));
  const own = memoryAccountStore();
  t.is(await openAccountStore(own), own);
  for (const [bad, message] of [
    ['redis://u:pw@127.0.0.1/0', /^accounts\.store: unknown scheme \(use lmdb:\/\/<path>/],
    ['lmdb://', /^accounts\.store: lmdb:\/\/ needs a path/],
    ['not a uri', /^accounts\.store: unknown scheme/],
  ] as const) {
    const err = await t.throwsAsync(openAccountStore(bad), { instanceOf: TypeError, message });
    t.false(err!.message.includes('pw@'), 'the URI is not echoed');
  }
  await t.throwsAsync(openAccountStore({ create() {} } as never), {
    instanceOf: TypeError,
    message: /^accounts\.store must be an account store URI or an object with the AccountStore methods$/,
  });
});
