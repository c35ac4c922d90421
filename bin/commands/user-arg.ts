import { existsSync } from 'node:fs';
import { lookUpAccount } from '../../lib/accounts/admin.js';
import { defaultLinksStore } from '../../lib/accounts/options.js';
import { accountIdIn, recordedPrefix } from '../../lib/accounts/user-ids.js';
import { openAccounts } from './account-store.js';
import { checkSharedStore, openSharedStore } from './shared-store.js';

/**
 * The user a command acts on, named as an operator knows them: a session user id (`local_acct_…`, `github_…`), or,
 * with `--accounts`, an account's address or id (`acct_…`) turned into the account's one user id. An address or an
 * account id without `--accounts`, or one the store does not have, is an error naming it: never "nothing stored".
 */

export const USER_ARG_HELP =
  'the user id as in the token (local_acct_…, github_…), or with --accounts an address or acct_…';

export interface UserArgOptions {
  accounts?: string;
  links?: string;
  /** How messages name the accounts store's argument (default `--accounts`; `accounts links` takes `--store`). */
  accountsArgument?: string;
}

export const ACCOUNTS_HELP = "the apps' accounts.store, to name the user by an account's address or id";
export const LINKS_HELP = "the links' store, when the app sets accounts.links (default: beside --accounts)";

/** The user id `who` names; an Error naming it when it cannot be one. */
export async function userArg(who: string, o: UserArgOptions): Promise<string> {
  const name = who.trim();
  if (name === '') throw new Error('<user> must not be empty: a user id, or with --accounts an address or acct_…');
  const accountForm = name.includes('@') || name.startsWith('acct_');
  if (!o.accounts) {
    if (accountForm)
      throw new Error(
        `<user> ${name} is an account's ${name.includes('@') ? 'address' : 'id'}: give --accounts <uri> (the apps' accounts.store) to find its user id`,
      );
    return name;
  }
  const argument = o.accountsArgument ?? '--accounts';
  const store = await openAccounts(o.accounts, { readOnly: true, argument });
  const prefix = await linksPrefix(o.links ?? defaultLinksStore(o.accounts)).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  try {
    const account = await lookUpAccount(store, name, () => Promise.resolve(prefix));
    if (!account) {
      if (accountForm || (prefix !== undefined && accountIdIn(name, prefix) !== undefined))
        throw new Error(`no account ${name} in ${argument}`);
      return name; // a user id of another provider: not an account's, and not ours to refuse
    }
    if (prefix === undefined)
      throw new Error(`<user> ${name}: the account has no user id yet (no password provider has run with its store)`);
    return `${prefix}_${account.id}`;
  } finally {
    await store.close();
  }
}

/** The accounts' user-id prefix recorded in the links' store; undefined when none is (or the store is not there). */
export async function linksPrefix(uri: string): Promise<string | undefined> {
  if (uri.startsWith('lmdb://') && !existsSync(uri.slice('lmdb://'.length))) return undefined;
  const store = await openSharedStore(checkSharedStore(uri), { readOnly: true, argument: '--links' });
  try {
    return await recordedPrefix(store, undefined);
  } finally {
    await store.close();
  }
}
