/**
 * `authctl accounts links`, run as a separate process on the LMDB environments an app (in this process) keeps its
 * accounts and links in: the identities of an account by its address, its account id or its user id, and how it
 * refuses what it cannot read.
 */
import test from 'ava';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { linkThrough, linksRig, sessionOf } from '../accounts/links-rig.js';
import { signUpAndConfirm } from '../accounts/rig.js';

test('lists an account’s identities by address, account id or user id, from the links kept beside the accounts', async (t) => {
  const store = `lmdb://${join(tempDir(t, 'authkoa-links-'), 'accounts')}`;
  const r = await linksRig(t, { accounts: { store } });
  await signUpAndConfirm(r, 'max@example.com');
  const userId = sessionOf(r.client).id;
  t.is((await linkThrough(r, r.client, 'dev', 'max-gh')).status, 303);

  const byAddress = await runCli(['accounts', 'links', 'max@example.com', '--store', store]);
  t.is(byAddress.code, 0, byAddress.stderr);
  t.regex(byAddress.stdout, /^local\tmax@example\.com\tmax@example\.com\t\S+\t\(own\)$/m);
  t.regex(byAddress.stdout, /^dev\tmax-gh\t-\t\S+$/m);

  const accountId = userId.slice('local_'.length);
  const json = await runCli(['accounts', 'links', accountId, '--store', store, '--json']);
  t.is(json.code, 0, json.stderr);
  t.like(JSON.parse(json.stdout), [
    { provider: 'local', primary: true },
    { provider: 'dev', name: 'max-gh', primary: false },
  ]);
  const byUser = await runCli(['accounts', 'links', 'max-gh', '--store', store]);
  t.regex(byUser.stdout, /no identities linked to max-gh/, 'an identity linked elsewhere has no links of its own');

  const unknown = await runCli(['accounts', 'links', 'nobody@example.com', '--store', store]);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no account nobody@example\.com/);
  const memory = await runCli(['accounts', 'links', 'max-gh', '--store', 'memory://']);
  t.not(memory.code, 0);
  t.regex(memory.stderr, /memory:\/\/ is one process's own/);
});
