/**
 * `authctl accounts` as an operator runs it (a child process under tsx), on real LMDB files, read back
 * through the store the apps would open.
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lmdbAccountStore } from '../../lib/accounts/lmdb-store.js';
import { verifyPassword } from '../../lib/accounts/password-hash.js';
import { runCli } from '../helpers/cli.js';
import { startApp } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

test('create (password from stdin), list, set-password, delete: what the store then holds', async (t) => {
  const store = `lmdb://${join(tempDir(t), 'accounts')}`;
  const created = await runCli(
    ['accounts', 'create', 'Ada@Example.com', '--store', store, '--name', 'Ada', '--password-stdin'],
    {
      input: 'difference engine\n',
    },
  );
  t.is(created.code, 0, created.stderr);
  const id = /^authctl accounts: created (acct_\S+) for ada@example\.com\n$/.exec(created.stdout)?.[1];
  t.truthy(id, created.stdout);
  const listed = await runCli(['accounts', 'list', '--store', store, '--json']);
  t.is(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
  t.like(rows[0], { id, email: 'ada@example.com', name: 'Ada', emailConfirmed: false, hasPassword: true });
  t.false(listed.stdout.includes('$scrypt$'), 'no hash printed');
  const set = await runCli(['accounts', 'set-password', id!, '--store', store], { input: 'analytical engine\n' });
  t.is(set.code, 0, set.stderr);
  t.is(set.stdout, 'authctl accounts: the password of ada@example.com is set\n');
  const db = lmdbAccountStore(store.slice('lmdb://'.length));
  const hash = (await db.get(id!))!.passwordHash!;
  await db.close();
  t.true(await verifyPassword('analytical engine', hash));
  const deleted = await runCli(['accounts', 'delete', 'ada@example.com', '--store', store]);
  t.is(deleted.code, 0, deleted.stderr);
  t.is((await runCli(['accounts', 'list', '--store', store])).stdout, 'authctl accounts: no accounts\n');
});

test('refusals are one line naming what was wrong, and exit 1', async (t) => {
  const store = `lmdb://${join(tempDir(t), 'accounts')}`;
  const cases: Array<[string[], string | undefined, RegExp]> = [
    [
      ['accounts', 'create', 'not-an-address', '--store', store],
      undefined,
      /^authctl: email must be one plain address\n$/,
    ],
    [
      ['accounts', 'create', 'a@example.com', '--store', store, '--password-stdin'],
      'short\n',
      /^authctl: the password is refused: too_short\n$/,
    ],
    [
      ['accounts', 'create', 'a@example.com', '--store', store, '--password-stdin'],
      '',
      /^authctl: --password-stdin: standard input held no password\n$/,
    ],
    [
      ['accounts', 'delete', 'nobody@example.com', '--store', store],
      undefined,
      /^authctl: no account nobody@example\.com\n$/,
    ],
    [
      ['accounts', 'list', '--store', 'memory://'],
      undefined,
      /^authctl: --store must be the apps' accounts store: memory:\/\/ is one process's own\n$/,
    ],
    [
      ['accounts', 'list', '--store', 'redis://u:pw@127.0.0.1/0'],
      undefined,
      /^authctl: cannot open the accounts store: --store: unknown scheme/,
    ],
    [
      ['accounts', 'list', '--store', store, '--limit', '0'],
      undefined,
      /^authctl: --limit must be a number from 1 to 1000\n$/,
    ],
  ];
  for (const [args, input, stderr] of cases) {
    const r = await runCli(args, { input });
    t.is(r.code, 1, args.join(' '));
    t.regex(r.stderr, stderr);
    t.false(r.stderr.includes('pw@') || r.stderr.includes('    at '), 'no URI password, no stack');
  }
  await runCli(['accounts', 'create', 'taken@example.com', '--store', store]);
  const taken = await runCli(['accounts', 'create', 'TAKEN@example.com', '--store', store]);
  t.regex(taken.stderr, /^authctl: taken@example\.com has an account already\n$/);
});

test("reset-link --config: a link signed with the app's secret that sets the password in the running app", async (t) => {
  const dir = tempDir(t);
  const store = `lmdb://${join(dir, 'accounts')}`;
  const config = join(dir, 'app.config.mjs');
  const options = {
    secret: 'cli-reset-link-secret-0123456789abcdef',
    url: 'http://app.example',
    accounts: { store },
    providers: [{ kind: 'password', name: 'local', scrypt: { ln: 10, r: 8, p: 1 } }],
  };
  // The sender is a function, which JSON cannot carry: the module adds it.
  writeFileSync(
    config,
    `const o = ${JSON.stringify(options)};\no.providers[0].sender = () => {};\nexport default o;\n`,
  );
  t.is((await runCli(['accounts', 'create', 'ada@example.com', '--store', store, '--confirmed'])).code, 0);
  const printed = await runCli(['accounts', 'reset-link', 'ada@example.com', '--config', config]);
  t.is(printed.code, 0, printed.stderr);
  const link = new URL(printed.stdout.trim());
  t.is(`${link.origin}${link.pathname}`, 'http://app.example/auth/local/reset/confirm');
  // The app of that configuration takes the link: the password is set, and only once.
  const { default: app } = (await import(pathToFileURL(config).href)) as { default: Record<string, unknown> };
  const served = await startApp(app as never);
  t.teardown(() => served.close());
  const redeem = () =>
    fetch(`${served.url}${link.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: link.searchParams.get('token'), password: 'analytical engine' }),
    });
  const first = await redeem();
  t.is(first.status, 200, await first.clone().text());
  t.is((await redeem()).status, 403);
  const login = await fetch(`${served.url}/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'ada@example.com', passwd: 'analytical engine' }),
  });
  t.is(login.status, 200);
  const refused = await runCli(['accounts', 'reset-link', 'nobody@example.com', '--config', config]);
  t.is(refused.code, 1);
  t.is(refused.stderr, 'authctl: no account nobody@example.com\n');
});
