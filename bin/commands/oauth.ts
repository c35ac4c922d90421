import { Command } from 'commander';
import type { AuthorizationServerAdmin, ConnectedApp } from '../../lib/authorization-server/admin.js';
import type { OAuthClient } from '../../lib/authorization-server/clients/types.js';
import { isRegisteredClientId } from '../../lib/authorization-server/clients/registry.js';
import { storeAdmin } from '../../lib/authorization-server/store-admin.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';
import { ACCOUNTS_HELP, LINKS_HELP, USER_ARG_HELP, userArg, type UserArgOptions } from './user-arg.js';

interface StoreOptions {
  store: string;
  json?: boolean;
}

/** Opens `--store` (never creating it when `readOnly`), runs `use` with the admin API over it, and closes it. */
async function withAdmin<T>(
  opts: StoreOptions,
  readOnly: boolean,
  use: (admin: AuthorizationServerAdmin) => Promise<T>,
): Promise<T> {
  const store = await openSharedStore(checkSharedStore(opts.store), { readOnly });
  try {
    return await use(storeAdmin(store));
  } finally {
    await store.close();
  }
}

const STORE_HELP = `the apps' stateStore (${SHARED_STORES})`;
const NOT_IN_STORE =
  "clients of authorizationServer.clients live in the apps' options, not in the store: they are changed there";
const NO_EVENT =
  'refresh tokens are refused at once; access tokens already issued live until they expire, since grant_revoked ' +
  'is told only by the app (auth.authorizationServer)';

function printClients(rows: OAuthClient[]): void {
  if (rows.length === 0) {
    process.stdout.write(`authctl oauth: no registered clients in that store (${NOT_IN_STORE})\n`);
    return;
  }
  for (const c of rows) {
    const name = c.name === undefined ? '-' : JSON.stringify(c.name);
    const kind = c.confidential ? 'confidential' : 'public';
    const redirects = c.redirectURIs.join(' ') || '-';
    process.stdout.write(`${c.id}  ${name}  ${kind}  grants ${c.grantTypes.join(',')}  redirect ${redirects}\n`);
  }
  process.stdout.write(`${rows.length} registered client${rows.length === 1 ? '' : 's'}\n`);
}

function printGrants(userId: string, rows: ConnectedApp[]): void {
  if (rows.length === 0) {
    process.stdout.write(`authctl oauth: no connected apps of ${userId}\n`);
    return;
  }
  for (const g of rows) {
    const list = (xs: string[]) => (xs.length ? xs.join(',') : '-');
    process.stdout.write(
      `${g.clientId}  ${JSON.stringify(g.clientName)}  scopes ${list(g.scopes)}  resources ${list(g.resources)}  ` +
        `first used ${g.firstUsed}  last used ${g.lastUsed}\n`,
    );
  }
  process.stdout.write(`${rows.length} connected app${rows.length === 1 ? '' : 's'} of ${userId}\n`);
}

/** A client id as a grant names it: a registered id, an options client's id or a metadata document's URL. */
function checkClientId(id: string, registered: boolean): string {
  if (registered && !isRegisteredClientId(id))
    throw new Error("<client-id> must be a registered client's id, as `authctl oauth clients list` prints it");
  if (id === '' || id.length > 2048 || /[\p{Cc}\s]/u.test(id))
    throw new Error('<client-id> must be a client id as `authctl oauth grants list` prints it');
  return id;
}

function clientsCommand(): Command {
  const clients = new Command('clients').description(`the registered clients (${NOT_IN_STORE})`);
  clients
    .command('list')
    .description('list the clients registered through dynamic client registration (never a secret)')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--json', 'print JSON')
    .action(async (opts: StoreOptions) => {
      const rows = await withAdmin(opts, true, (admin) => admin.clients.list());
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printClients(rows);
    });
  clients
    .command('revoke')
    .description(`remove a registered client and revoke every grant of it, whoever's (${NO_EVENT})`)
    .argument('<client-id>', 'the id `authctl oauth clients list` prints')
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (given: string, opts: StoreOptions) => {
      const id = checkClientId(given, true);
      if (!(await withAdmin(opts, false, (admin) => admin.clients.revoke(id))))
        throw new Error(`no registered client ${id} in that store (${NOT_IN_STORE})`);
      process.stdout.write(`authctl oauth: client ${id} is removed and every grant of it revoked\n`);
    });
  return clients;
}

function grantsCommand(): Command {
  const grants = new Command('grants').description("users' grants to clients: their connected apps");
  grants
    .command('list')
    .description("list a user's connected apps: each client holding a grant of theirs, most recently used first")
    .argument('<user>', USER_ARG_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--json', 'print JSON')
    .action(async (given: string, opts: StoreOptions & UserArgOptions) => {
      const userId = await userArg(given, opts);
      const rows = await withAdmin(opts, true, (admin) => admin.grants.list(userId));
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printGrants(userId, rows);
    });
  grants
    .command('revoke')
    .description(`revoke every grant of one client for a user and forget the consent (${NO_EVENT})`)
    .argument('<user>', USER_ARG_HELP)
    .argument('<client-id>', 'the client id `authctl oauth grants list` prints')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .action(async (given: string, client: string, opts: StoreOptions & UserArgOptions) => {
      const clientId = checkClientId(client, false);
      const userId = await userArg(given, opts);
      if (!(await withAdmin(opts, false, (admin) => admin.grants.revoke(userId, clientId))))
        throw new Error(`no grant of ${clientId} for ${userId} in that store`);
      process.stdout.write(`authctl oauth: every grant of ${clientId} for ${userId} is revoked\n`);
    });
  return grants;
}

/**
 * `authctl oauth clients list|revoke` and `authctl oauth grants list|revoke`, for an operator: what
 * `auth.authorizationServer` does, on the state store the apps share, without them running.
 */
export function oauthCommand(): Command {
  return new Command('oauth')
    .description("the app's OAuth 2.1 authorization server: registered clients and users' grants, in its state store")
    .addCommand(clientsCommand())
    .addCommand(grantsCommand());
}
