import type { Command } from 'commander';
import { stateIdentityStore } from '../../lib/accounts/links/identities.js';
import { defaultLinksStore } from '../../lib/accounts/options.js';
import { openAccounts } from './account-store.js';
import { checkSharedStore, openSharedStore } from './shared-store.js';

/**
 * `authctl accounts links <user>`: the identities that log in as an account, read from the links' store
 * (`accounts.links`, by default beside `--store` as the app derives it). `<user>` is the account's session user id
 * (`local_acct_…`, `github_…`), or a password account's address or id with `--provider` (default `local`).
 */
export function linksCommand(accounts: Command, storeHelp: string): void {
  accounts
    .command('links')
    .description('list the identities linked to an account')
    .argument('<user>', "the account's user id, or a password account's address or id (acct_…)")
    .requiredOption('--store <uri>', storeHelp)
    .option('--links <uri>', "the links' store, when the app sets accounts.links (default: beside --store)")
    .option('--provider <name>', 'the password provider of an address or account id', 'local')
    .option('--json', 'print JSON')
    .action(async (who: string, o: { store: string; links?: string; provider: string; json?: boolean }) => {
      const userId = await userIdOf(who, o.store, o.provider);
      // Read-only: neither store is created at a mistyped path. The links' default is checked as the path it is.
      const links = checkSharedStore(o.links ?? defaultLinksStore(o.store));
      const store = await openSharedStore(links, {
        readOnly: true,
        argument: o.links === undefined ? '--links (by default beside --store)' : '--links',
      });
      try {
        const links = await stateIdentityStore(store).list(userId);
        const rows = links.map((l) => ({
          provider: l.provider,
          ...(l.name && { name: l.name }),
          ...(l.email && { email: l.email }),
          linked: new Date(l.linkedAt).toISOString(),
          primary: l.subject === l.userId,
        }));
        if (o.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else if (rows.length === 0) process.stdout.write(`authctl accounts: no identities linked to ${userId}\n`);
        else
          for (const r of rows)
            process.stdout.write(
              `${r.provider}\t${r.name ?? '-'}\t${r.email ?? '-'}\t${r.linked}${r.primary ? '\t(own)' : ''}\n`,
            );
      } finally {
        await store.close();
      }
    });
}

/**
 * A user id as given, or the session user id of a password account found by its address or id. `--store` is opened
 * (and so checked: there, not memory://) either way.
 */
async function userIdOf(who: string, storeUri: string, provider: string): Promise<string> {
  const accounts = await openAccounts(storeUri, { readOnly: true });
  try {
    if (!who.includes('@') && !who.startsWith('acct_')) return who;
    const account = who.includes('@') ? await accounts.findByEmail(who.trim().toLowerCase()) : await accounts.get(who);
    if (!account) throw new Error(`no account ${who} in that store`);
    return `${provider}_${account.id}`;
  } finally {
    await accounts.close();
  }
}
