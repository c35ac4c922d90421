import { ACCOUNTS_HELP, LINKS_HELP, userArg, type UserArgOptions } from './user-arg.js';
import { Command } from 'commander';
import { statePasskeyStore, type PasskeyStore } from '../../lib/providers/passkey/store.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

interface StoreOption {
  store: string;
}

/**
 * Opens the passkey store at `--store` (the provider's `credentials`, or the service's `stateStore`; never created
 * when `readOnly`), runs `use`, and closes it.
 */
async function withPasskeys<T>(
  uri: string,
  readOnly: boolean,
  use: (passkeys: PasskeyStore) => Promise<T>,
): Promise<T> {
  const store = await openSharedStore(checkSharedStore(uri), { readOnly });
  try {
    return await use(statePasskeyStore(store));
  } finally {
    await store.close();
  }
}

const STORE_HELP = `where the passkeys are: the provider's credentials, or the apps' stateStore (${SHARED_STORES})`;

/** `authctl passkeys list <user id>` and `authctl passkeys remove <credential id>`, for operators. */
export function passkeysCommand(): Command {
  const passkeys = new Command('passkeys').description("look at and remove users' passkeys");
  passkeys
    .command('list')
    .description('list the passkeys of a user')
    .argument('<user-id>', 'the user id as in the token, e.g. github_1a2b…')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--json', 'print JSON')
    .action(async (given: string, opts: StoreOption & { json?: boolean } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      const list = await withPasskeys(opts.store, true, (p) => p.listByUser(userId));
      const rows = list.map((p) => ({
        id: p.id,
        createdAt: new Date(p.createdAt).toISOString(),
        lastUsedAt: p.lastUsedAt ? new Date(p.lastUsedAt).toISOString() : null,
        deviceType: p.deviceType ?? null,
        backedUp: p.backedUp ?? null,
        // The browser and system it was added from, as the user's own passkey list shows it.
        device: p.device ?? null,
      }));
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      for (const r of rows)
        process.stdout.write(
          `${r.id}  created ${r.createdAt}  last used ${r.lastUsedAt ?? 'never'}  ${r.deviceType ?? ''}` +
            `${r.device ? `  ${JSON.stringify(r.device)}` : ''}\n`,
        );
      process.stdout.write(`${rows.length} passkey${rows.length === 1 ? '' : 's'} of ${userId}\n`);
    });
  passkeys
    .command('remove')
    .description('remove a passkey: it no longer logs anyone in')
    .argument('<credential-id>', 'the passkey id, as `list` prints it')
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (id: string, opts: StoreOption) => {
      const removed = await withPasskeys(opts.store, false, async (p) => {
        const found = await p.get(id);
        return found && (await p.remove(id)) ? found : undefined;
      });
      if (!removed) throw new Error(`no passkey ${id} in that store`);
      process.stdout.write(`authctl passkeys: removed ${id} of ${removed.userId}\n`);
    });
  return passkeys;
}
