import { unknownOption } from '../util/options.js';
import { requireDurable } from '../util/store-policy.js';
import { isAccountStore } from './open.js';
import type { AccountStore } from './store.js';

/** The `accounts` option: where the accounts of the `password` kind are kept (docs/accounts.md). */
export interface AccountsOptions {
  /**
   * `lmdb://<path>` (embedded), `postgres://…` (tables made by `authctl db migrate` or on first open),
   * `mongodb://…`, or an object implementing AccountStore (the application's own users table). `memory://`
   * only with `allowVolatileStores: true`.
   */
  store: string | AccountStore;
}

/** The `accounts` option, checked. */
export interface AccountsConfig {
  readonly store: string | AccountStore;
}

/** What the `accounts` reader needs from the options read before it. */
export interface AccountsOptionsContext {
  /** `allowVolatileStores`: a memory account store is accepted (tests, demos). */
  allowVolatileStores: boolean;
}

const ACCOUNTS_OPTIONS = ['store'];

/** Checks the `accounts` option (a TypeError naming `accounts.<key>`); undefined when it is not set. */
export function readAccountsOptions(input: unknown, ctx: AccountsOptionsContext): AccountsConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError("authKoa: accounts must be an object: { store: 'lmdb://./var/accounts' }");
  for (const key of Object.keys(input)) {
    if (!ACCOUNTS_OPTIONS.includes(key))
      throw new TypeError(`authKoa: ${unknownOption(key, ACCOUNTS_OPTIONS).replace('"', '"accounts.')}`);
  }
  const store = (input as AccountsOptions).store;
  if (store === undefined)
    throw new TypeError("authKoa: accounts.store is required: where accounts are kept, e.g. 'lmdb://./var/accounts'");
  if (typeof store === 'string') {
    if (!/^(lmdb|postgres|postgresql|mongodb|mongodb\+srv|memory):\/\//.test(store))
      throw new TypeError(
        'authKoa: accounts.store must be lmdb://<path>, postgres://…, mongodb://…, memory:// or an AccountStore',
      );
  } else if (!isAccountStore(store)) {
    throw new TypeError('authKoa: accounts.store must be a URI or an object with the AccountStore methods');
  }
  // Every account, and with it every password, would be gone at the next restart.
  const volatile = typeof store === 'string' ? store.startsWith('memory://') : store.volatile === true;
  requireDurable(
    { volatile },
    'authKoa: accounts.store',
    'every account',
    ctx.allowVolatileStores,
    'lmdb://<path>, postgres://…, mongodb://…',
  );
  return { store };
}
