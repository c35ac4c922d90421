/**
 * `authctl oauth clients list|revoke` and `authctl oauth grants list|revoke`, run as a separate process on the LMDB
 * environment an app (in this process) keeps its state in: grants made through the real flow by oauth4webapi, a
 * client registered through the registration endpoint; what the commands list, what they revoke, the app refusing
 * the refresh tokens at once, and how they refuse bad arguments and a store that is not there.
 */
import test from 'ava';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { signUpAndConfirm } from '../accounts/rig.js';
import { codeFlow, insecure, REDIRECT, registerClient, serverRig } from '../authorization-server/app-rig.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const agent: oauth.Client = { client_id: 'agent' };

test('clients and grants listed from the store; a grant revoked and a registered client removed: the app refuses their refresh tokens at once', async (t) => {
  const state = `lmdb://${join(tempDir(t, 'authkoa-oauth-'), 'state')}`;
  const r = await serverRig(t, { registration: 'open' }, { stateStore: state });
  const registered = await registerClient(r, { client_name: 'Registered agent' });
  const mine: oauth.Client = { client_id: registered.client_id };
  await signUpAndConfirm(r, 'ann@example.com');
  const viaAgent = await codeFlow(r, r.client, agent);
  const viaMine = await codeFlow(r, r.client, mine, 'notes:read offline_access');
  const user = viaAgent.userId;
  const refresh = (client: oauth.Client, token: string) =>
    oauth.refreshTokenGrantRequest(r.as, client, oauth.None(), token, insecure);

  const clients = await runCli(['oauth', 'clients', 'list', '--store', state, '--json']);
  t.is(clients.code, 0, clients.stderr);
  t.like(JSON.parse(clients.stdout), [
    { id: registered.client_id, name: 'Registered agent', source: 'registered', redirectURIs: [REDIRECT] },
  ]);
  t.is((JSON.parse(clients.stdout) as unknown[]).length, 1, "the options' clients are not in the store");
  const clientsText = await runCli(['oauth', 'clients', 'list', '--store', state]);
  t.regex(clientsText.stdout, new RegExp(`^${registered.client_id}  "Registered agent"  public  grants `, 'm'));
  t.regex(clientsText.stdout, /^1 registered client\n$/m);

  const grants = await runCli(['oauth', 'grants', 'list', user, '--store', state, '--json']);
  t.is(grants.code, 0, grants.stderr);
  const rows = JSON.parse(grants.stdout) as Array<Record<string, unknown>>;
  // By client: both were granted at the same moment of the app's clock, so their order is not the point.
  t.deepEqual(Object.fromEntries(rows.map((g) => [g.clientId, g.clientName])), {
    agent: 'agent', // a client of the options: its name is in the apps' options, which the CLI does not read
    [registered.client_id]: 'Registered agent',
  });
  const grantsText = await runCli(['oauth', 'grants', 'list', user, '--store', state]);
  t.regex(grantsText.stdout, /^agent  "agent"  scopes notes:read  resources https:\/\/api\.example\/mcp  first used /m);
  t.regex(grantsText.stdout, new RegExp(`^2 connected apps of ${user}\\n$`, 'm'));

  const revoked = await runCli(['oauth', 'grants', 'revoke', user, 'agent', '--store', state]);
  t.is(revoked.code, 0, revoked.stderr);
  t.is(revoked.stdout, `authctl oauth: every grant of agent for ${user} is revoked\n`);
  const refused = await refresh(agent, viaAgent.refreshToken);
  t.is(refused.status, 400, 'refused at once: the app reads the same store');
  t.is(((await refused.json()) as { error: string }).error, 'invalid_grant');
  const again = await runCli(['oauth', 'grants', 'revoke', user, 'agent', '--store', state]);
  t.is(again.code, 1);
  t.is(again.stderr, `authctl: no grant of agent for ${user} in that store\n`);

  const removed = await runCli(['oauth', 'clients', 'revoke', registered.client_id, '--store', state]);
  t.is(removed.code, 0, removed.stderr);
  t.is(removed.stdout, `authctl oauth: client ${registered.client_id} is removed and every grant of it revoked\n`);
  t.not((await refresh(mine, viaMine.refreshToken)).status, 200);
  t.deepEqual(await r.app.auth.authorizationServer!.grants.list(user), [], 'the family went with the client');
  const none = await runCli(['oauth', 'clients', 'list', '--store', state]);
  t.regex(none.stdout, /^authctl oauth: no registered clients in that store \(clients of authorizationServer\.clients/);
  const gone = await runCli(['oauth', 'clients', 'revoke', registered.client_id, '--store', state]);
  t.is(gone.code, 1);
  t.regex(gone.stderr, /^authctl: no registered client \S+ in that store/);
  const noApps = await runCli(['oauth', 'grants', 'list', user, '--store', state]);
  t.is(noApps.stdout, `authctl oauth: no connected apps of ${user}\n`);
});

test('bad arguments and a store that is not there are refused naming them, in one line', async (t) => {
  const dir = tempDir(t, 'authkoa-oauth-');
  const absent = `lmdb://${join(dir, 'nothing')}`;
  const [memory, noStore, listMissing, grantsMissing, badClient, emptyClient, account] = await Promise.all([
    runCli(['oauth', 'clients', 'list', '--store', 'memory://']),
    runCli(['oauth', 'grants', 'list', 'local_alice']),
    runCli(['oauth', 'clients', 'list', '--store', absent]),
    runCli(['oauth', 'grants', 'list', 'local_alice', '--store', absent]),
    runCli(['oauth', 'clients', 'revoke', 'agent/../x', '--store', absent]),
    runCli(['oauth', 'grants', 'revoke', 'local_alice', '', '--store', absent]),
    runCli(['oauth', 'grants', 'list', 'ann@example.com', '--store', absent]),
  ]);
  t.regex(memory.stderr, /--store must be the apps' shared store/);
  t.regex(noStore.stderr, /required option '--store <uri>'/);
  for (const r of [listMissing, grantsMissing])
    t.is(r.stderr, `authctl: --store ${absent}: no store there (read-only commands never create one)\n`);
  t.regex(badClient.stderr, /<client-id> must be a registered client's id/);
  t.regex(emptyClient.stderr, /<client-id> must be a client id/);
  t.regex(account.stderr, /<user> ann@example\.com is an account's address: give --accounts/);
  for (const r of [memory, noStore, listMissing, grantsMissing, badClient, emptyClient, account]) {
    t.not(r.code, 0);
    t.false(/\n\s+at /.test(r.stderr), 'no stack trace');
  }
});
