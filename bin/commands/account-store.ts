import { openAccountStore } from '../../lib/accounts/open.js';
import type { AccountStore } from '../../lib/accounts/store.js';
import { openFailure, refuseMissingStore } from './shared-store.js';

/**
 * Opens the accounts store `uri` names for a command (`argument` in messages): memory:// is refused (one process's
 * own: nothing the apps would see), and with `readOnly` (a list) so is an `lmdb://` path that holds no store, which
 * opening would create. A store that cannot be opened is one line.
 */
export async function openAccounts(
  uri: string,
  { readOnly = false, argument = '--store' }: { readOnly?: boolean; argument?: string } = {},
): Promise<AccountStore> {
  if (/^memory:/.test(uri))
    throw new Error(`${argument} must be the apps' accounts store: memory:// is one process's own`);
  if (readOnly && uri.startsWith('lmdb://'))
    refuseMissingStore(uri.slice('lmdb://'.length) || undefined, uri, argument);
  return openAccountStore(uri, {}, argument).catch((err: unknown) => {
    throw new Error(openFailure('the accounts store', err));
  });
}
