import { ACCOUNTS_HELP, LINKS_HELP, userArg, type UserArgOptions } from './user-arg.js';
import { Command } from 'commander';
import type { StateStore } from '../../lib/state/types.js';
import { statePersonalTokenStore, type PersonalTokenStore } from '../../lib/personal-tokens/store.js';
import { tokenView, type PersonalTokenView } from '../../lib/personal-tokens/views.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

interface StoreOptions {
  store: string;
}

/** Opens `--store` (never creating it when `readOnly`), runs `use` with the personal tokens kept there, and closes it. */
async function withTokens<T>(
  userId: string,
  opts: StoreOptions & { readOnly?: boolean },
  use: (tokens: PersonalTokenStore) => Promise<T>,
) {
  if (userId.trim() === '') throw new Error('<user-id> must not be empty');
  const target = checkSharedStore(opts.store);
  const store: StateStore = await openSharedStore(target, { readOnly: opts.readOnly });
  try {
    return await use(statePersonalTokenStore(store));
  } finally {
    await store.close();
  }
}

/** Prints the tokens one a line, oldest first, and a count; says so when there are none. */
function printTokens(userId: string, rows: PersonalTokenView[]): void {
  if (rows.length === 0) {
    process.stdout.write(`authctl tokens: no live personal tokens of ${userId}\n`);
    return;
  }
  for (const r of rows) {
    const scopes = r.scopes.length ? r.scopes.join(',') : '-';
    const used = r.lastUsed ?? 'never';
    process.stdout.write(
      `${r.id}  ${JSON.stringify(r.name)}  scopes ${scopes}  created ${r.created}  last used ${used}  ` +
        `expires ${r.expires ?? 'never'}\n`,
    );
  }
  process.stdout.write(`${rows.length} token${rows.length === 1 ? '' : 's'} of ${userId}\n`);
}

function checkTokenId(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new Error('<token-id> must be an id as `authctl tokens list` prints it');
  return id;
}

const USER_HELP = 'the user id as in the token, e.g. local_…';
const STORE_HELP = `the apps' stateStore: ${SHARED_STORES}`;

/**
 * `authctl tokens list <user id>` and `authctl tokens revoke <user id> <token id> | --all`, for an operator: what
 * `auth.tokens.list` and `auth.tokens.revoke` do, on the state store the apps share. A revoked token is refused
 * within the apps' `tokens.revocationDelay` (at once with `strictRevocation`).
 */
export function tokensCommand(): Command {
  const tokens = new Command('tokens').description(
    "list and revoke users' personal access tokens, in the state store the apps share",
  );
  tokens
    .command('list')
    .description("list a user's live personal tokens, oldest first (never their secrets)")
    .argument('<user-id>', USER_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--json', 'print JSON')
    .action(async (given: string, opts: StoreOptions & { json?: boolean } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      const rows = (
        await withTokens(userId, { ...opts, readOnly: true }, (store) => store.list(userId, Date.now()))
      ).map(tokenView);
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printTokens(userId, rows);
    });
  tokens
    .command('revoke')
    .description("revoke one of a user's personal tokens, or all of them (--all)")
    .argument('<user-id>', USER_HELP)
    .argument('[token-id]', 'the id `authctl tokens list` prints (pat_…)')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--all', 'revoke every token of the user')
    .action(async (given: string, id: string | undefined, opts: StoreOptions & { all?: boolean } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      if (opts.all) {
        if (id !== undefined) throw new Error('give a <token-id> or --all, not both');
        const gone = await withTokens(userId, opts, (store) => store.revokeAll(userId));
        process.stdout.write(
          `authctl tokens: ${gone.length} token${gone.length === 1 ? '' : 's'} of ${userId} revoked\n`,
        );
        return;
      }
      if (id === undefined) throw new Error('give the <token-id> to revoke, or --all');
      const tokenId = checkTokenId(id);
      if (!(await withTokens(userId, opts, (store) => store.revoke(userId, tokenId))))
        throw new Error(`no live token ${tokenId} of ${userId} in that store`);
      process.stdout.write(`authctl tokens: token ${tokenId} of ${userId} is revoked\n`);
    });
  return tokens;
}
