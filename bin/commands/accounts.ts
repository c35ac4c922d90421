import { Command } from 'commander';
import { AccountError, accountsAdmin, type AccountsAdmin, type AccountView } from '../../lib/accounts/admin.js';
import { defaultLinksStore } from '../../lib/accounts/options.js';
import { authKoa } from '../../lib/index.js';
import { linksCommand } from './account-links.js';
import { openAccounts } from './account-store.js';
import { linksPrefix } from './user-arg.js';
import { loadConfig } from './config.js';

const STORE_HELP = "the apps' accounts store: lmdb://<path>, postgres://… or mongodb://…";
const WHO_HELP = 'the account: its address, its id (acct_…) or its user id (local_acct_…)';

/**
 * Checks `--store` and opens it (openAccounts: never created when `readOnly`), runs `use` with the admin API the
 * apps' `auth.accounts` is made of, and closes it. A refusal is one line naming what was wrong.
 */
async function withAccounts<T>(
  uri: string,
  use: (accounts: AccountsAdmin) => Promise<T>,
  { readOnly = false } = {},
): Promise<T> {
  const store = await openAccounts(uri, { readOnly });
  try {
    return await use(accountsAdmin(store, { userIdPrefix: () => linksPrefix(defaultLinksStore(uri)) }));
  } catch (err) {
    if (err instanceof AccountError) throw new Error(err.message);
    throw err;
  } finally {
    await store.close();
  }
}

/** The password from standard input (its first line): never an argument, which shells keep in their history. */
async function passwordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.length > 4096) throw new Error('--password-stdin: the password is one line of at most 256 characters');
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  if (line === '') throw new Error('--password-stdin: standard input held no password');
  return line;
}

function printAccount(a: AccountView): void {
  const name = a.name === undefined ? '' : `  ${JSON.stringify(a.name)}`;
  const state = `${a.emailConfirmed ? 'confirmed' : 'unconfirmed'}${a.hasPassword ? '' : ', no password'}`;
  process.stdout.write(`${a.id}  ${a.email}  ${state}${name}  created ${new Date(a.createdAt).toISOString()}\n`);
}

/**
 * `authctl accounts create|list|delete|set-password --store <uri>`: what `auth.accounts` does, for an
 * operator, on the store the apps share. Passwords come from standard input only (`--password-stdin`).
 * `reset-link --config <file>` needs the app's secret and url, so it reads the app's own options.
 */
export function accountsCommand(): Command {
  const accounts = new Command('accounts').description("create, list and delete accounts in the apps' accounts store");
  accounts
    .command('create')
    .description('create an account (confirmed with --confirmed; with a password from standard input)')
    .argument('<email>', 'its address')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--name <name>', 'its name')
    .option('--confirmed', 'take the address as confirmed')
    .option('--password-stdin', 'read its password from the first line of standard input')
    .action(
      async (email: string, o: { store: string; name?: string; confirmed?: boolean; passwordStdin?: boolean }) => {
        const password = o.passwordStdin ? await passwordFromStdin() : undefined;
        const a = await withAccounts(o.store, (admin) =>
          admin.create({ email, password, name: o.name, confirmed: o.confirmed }),
        );
        process.stdout.write(`authctl accounts: created ${a.id} for ${a.email}\n`);
      },
    );
  accounts
    .command('list')
    .description('list the accounts, a page at a time, in id order')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--after <id>', 'start after this account id (the last of the previous page)')
    .option('--limit <n>', 'at most this many (1 to 1000)', '100')
    .option('--json', 'print JSON (without the password hashes)')
    .action(async (o: { store: string; after?: string; limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new Error('--limit must be a number from 1 to 1000');
      const page = await withAccounts(o.store, (admin) => admin.list({ after: o.after, limit }), { readOnly: true });
      if (o.json) process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
      else if (page.length === 0) process.stdout.write('authctl accounts: no accounts\n');
      else page.forEach(printAccount);
    });
  accounts
    .command('delete')
    .description('delete an account; its address may sign up again')
    .argument('<email-or-id>', WHO_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (who: string, o: { store: string }) => {
      await withAccounts(o.store, (admin) => admin.delete(who));
      process.stdout.write(`authctl accounts: deleted ${who}\n`);
    });
  accounts
    .command('set-password')
    .description("set an account's password, read from the first line of standard input")
    .argument('<email-or-id>', WHO_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (who: string, o: { store: string }) => {
      const password = await passwordFromStdin();
      const a = await withAccounts(o.store, (admin) => admin.setPassword(who, password));
      process.stdout.write(`authctl accounts: the password of ${a.email} is set\n`);
    });
  accounts
    .command('reset-link')
    .description('print a single-use reset link for an account, as the app would mail it')
    .argument('<email-or-id>', WHO_HELP)
    .requiredOption(
      '-c, --config <file>',
      "the app's authKoa() options module: the link is signed with its secret and leads to its url",
    )
    .option('--provider <name>', 'the password provider whose link it is (default: the first one)')
    .action(async (who: string, o: { config: string; provider?: string }) => {
      process.stdout.write(`${await resetLinkOf(o.config, who, o.provider)}\n`);
    });
  linksCommand(accounts, STORE_HELP);
  return accounts;
}

/** Starts the configured instance (without serving), asks it for the link, and closes it. */
async function resetLinkOf(config: string, who: string, provider: string | undefined): Promise<string> {
  const options = await loadConfig(config);
  // The command says a start-up error itself, in one line: the library's own report of it would be a second.
  const auth = authKoa({ ...options, logger: options.logger ?? (() => {}) });
  try {
    await auth.ready;
    if (!auth.accounts) throw new Error(`--config ${config}: that configuration has no accounts option`);
    return await auth.accounts.resetLink(who, provider);
  } catch (err) {
    if (err instanceof AccountError || err instanceof TypeError) throw new Error(err.message);
    throw err;
  } finally {
    await auth.close();
  }
}
