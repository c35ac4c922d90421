/**
 * The CLI's commands that take a user, run as separate processes on the LMDB environments an app (in this process)
 * keeps its accounts, sessions and second factors in: an account named by its address, its id or its user id alike
 * (with --accounts), and an address or account id it cannot resolve refused by name, exit 1, never "nothing stored".
 */
import test from 'ava';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { accountsRig, enrolTotp, signUpAndConfirm } from '../accounts/rig.js';

test('sessions list and mfa status take the address, the account id and the user id alike; unknown ones exit 1 naming them', async (t) => {
  const dir = tempDir(t, 'authkoa-user-arg-');
  const accounts = `lmdb://${join(dir, 'accounts')}`;
  const state = `lmdb://${join(dir, 'state')}`;
  const factors = `lmdb://${join(dir, 'mfa')}`;
  const r = await accountsRig(t, { store: accounts, service: { stateStore: state, mfa: { store: factors } } });
  const me = await signUpAndConfirm(r, 'cli-forms@example.com');
  await enrolTotp(r);
  const userId = String(me.id);
  const accountId = userId.slice('local_'.length);

  for (const who of ['cli-forms@example.com', accountId, userId]) {
    const listed = await runCli(['sessions', 'list', who, '--store', state, '--accounts', accounts, '--json']);
    t.is(listed.code, 0, listed.stderr);
    t.true((JSON.parse(listed.stdout) as unknown[]).length >= 1, `a session listed for ${who}`);
  }
  const status = await runCli([
    'mfa',
    'status',
    'CLI-forms@example.com',
    '--store',
    factors,
    '--accounts',
    accounts,
    '--json',
  ]);
  t.is(status.code, 0, status.stderr);
  t.like(JSON.parse(status.stdout), { userId, totp: true }, 'the factor found by the address');

  const noAccounts = await runCli(['mfa', 'status', 'cli-forms@example.com', '--store', factors]);
  t.is(noAccounts.code, 1);
  t.is(
    noAccounts.stderr,
    "authctl: <user> cli-forms@example.com is an account's address: give --accounts <uri> (the apps' accounts.store) to find its user id\n",
  );
  const unknown = await runCli(['sessions', 'list', 'nobody@example.com', '--store', state, '--accounts', accounts]);
  t.is(unknown.code, 1);
  t.is(unknown.stderr, 'authctl: no account nobody@example.com in --accounts\n');
  const unknownId = await runCli([
    'mfa',
    'status',
    'local_acct_AAAAAAAAAAAAAAAAAAAA',
    '--store',
    factors,
    '--accounts',
    accounts,
  ]);
  t.is(unknownId.code, 1);
  t.regex(unknownId.stderr, /no account local_acct_AAAAAAAAAAAAAAAAAAAA/);
});
