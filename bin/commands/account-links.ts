import type { Command } from 'commander';
import { stateIdentityStore } from '../../lib/accounts/links/identities.js';
import { defaultLinksStore } from '../../lib/accounts/options.js';
import { openAccounts } from './account-store.js';
import { checkSharedStore, openSharedStore } from './shared-store.js';
import { userArg } from './user-arg.js';

/**
 * `authctl accounts links <user>`: the identities that log in as an account, read from the links' store
 * (`accounts.links`, by default beside `--store` as the app derives it). `<user>` is the account's session user id
 * (`local_acct_…`, `github_…`), or an account's address or id (user-arg.ts).
 */
export function linksCommand(accounts: Command, storeHelp: string): void {
  accounts
    .command('links')
    .description('list the identities linked to an account')
    .argument('<user>', "the account's user id, or an account's address or id (acct_…)")
    .requiredOption('--store <uri>', storeHelp)
    .option('--links <uri>', "the links' store, when the app sets accounts.links (default: beside --store)")
    .option('--json', 'print JSON')
    .action(async (who: string, o: { store: string; links?: string; json?: boolean }) => {
      // Read-only: neither store is created at a mistyped path. `--store` is opened (and so checked: there, its
      // package installed, not memory://) before the links', whose default is checked as the path it is.
      await (await openAccounts(o.store, { readOnly: true })).close();
      const links = checkSharedStore(o.links ?? defaultLinksStore(o.store));
      const store = await openSharedStore(links, {
        readOnly: true,
        argument: o.links === undefined ? '--links (by default beside --store)' : '--links',
      });
      try {
        const userId = await userArg(who, { accounts: o.store, links: o.links, accountsArgument: '--store' });
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
