import { isStateStore, type StateStore } from '../state/types.js';
import { unknownOption } from '../util/options.js';
import { isVolatileStateOption, requireDurable } from '../util/store-policy.js';
import { isAccountStore } from './open.js';
import type { PasswordProviderOptions } from './password/options.js';
import type { AccountStore } from './store.js';

// The `password` kind the accounts bring is typed as a built-in kind's entry: `{ kind: 'password', name, … }`.
declare module '../providers/core/provider.js' {
  interface ProviderKinds {
    password: PasswordProviderOptions;
  }
}

/** The `accounts` option: where the accounts of the `password` kind are kept (docs/accounts.md). */
export interface AccountsOptions {
  /**
   * `lmdb://<path>` (embedded), `postgres://…` (tables made by `authctl db migrate` or on first open),
   * `mongodb://…`, or an object implementing AccountStore (the application's own users table). `memory://`
   * only with `allowVolatileStores: true`.
   */
  store: string | AccountStore;
  /**
   * Where the identity map of account linking is kept (which user each way in logs in as): a state store URI
   * or a StateStore, durable. Default: beside the accounts (`lmdb://<path>` gives `lmdb://<path>-links`, a
   * PostgreSQL or MongoDB URI its own database, `memory://` memory); with an AccountStore object, `stateStore`.
   */
  links?: string | StateStore;
  /**
   * Providers whose verified address (`email_verified: true`) may offer a link to the account with that confirmed
   * address: the login answers 409 `account_exists`, and the account's owner completes the link by logging in to
   * the account in the same browser within 15 minutes. Never a login by address alone. Default none.
   */
  trustEmail?: string[];
  /**
   * What a password reset (the mailed link redeemed) revokes besides the password: `'sessions'`, every session of
   * the account; `'tokens'`, every personal access token of its user. Default both: whoever held the account
   * before the reset keeps no way in through it. `[]` changes the password alone.
   */
  resetRevokes?: Array<ResetRevocable>;
}

/** What a reset can revoke (AccountsOptions.resetRevokes). */
export type ResetRevocable = 'sessions' | 'tokens';
const RESET_REVOCABLE: readonly ResetRevocable[] = ['sessions', 'tokens'];

/** The `accounts` option, checked. */
export interface AccountsConfig {
  readonly store: string | AccountStore;
  /** The identity map's store: a URI or a StateStore; undefined for the service's own (accounts being an object). */
  readonly links: string | StateStore | undefined;
  readonly trustEmail: readonly string[];
  readonly resetRevokes: readonly ResetRevocable[];
}

/** What the `accounts` reader needs from the options read before it. */
export interface AccountsOptionsContext {
  /** `allowVolatileStores`: a memory account store is accepted (tests, demos). */
  allowVolatileStores: boolean;
  /** `stateStore` as given: the links' store when the accounts are an object. */
  stateStore?: unknown;
}

const ACCOUNTS_OPTIONS = ['store', 'links', 'trustEmail', 'resetRevokes'];

/** Checks the `accounts` option (a TypeError naming `accounts.<key>`); undefined when it is not set. */
export function readAccountsOptions(input: unknown, ctx: AccountsOptionsContext): AccountsConfig | undefined {
  const store = readStore(input, ctx);
  if (store === undefined) return undefined;
  const { links, trustEmail, resetRevokes } = input as AccountsOptions;
  return {
    store,
    links: readLinks(links, store, ctx),
    trustEmail: readTrustEmail(trustEmail),
    resetRevokes: readResetRevokes(resetRevokes),
  };
}

function readStore(input: unknown, ctx: AccountsOptionsContext): string | AccountStore | undefined {
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
  return store;
}

/** `accounts.links`, or its default beside the accounts (see AccountsOptions.links). */
function readLinks(links: unknown, store: string | AccountStore, ctx: AccountsOptionsContext): AccountsConfig['links'] {
  if (links === undefined) {
    if (typeof store !== 'string') {
      requireDurable(
        { volatile: isVolatileStateOption(ctx.stateStore) },
        'authKoa: stateStore (where accounts keeps its links, accounts.store being an object)',
        'every link between an identity and its account',
        ctx.allowVolatileStores,
        'lmdb://<path>, postgres://…, mongodb://…, or set accounts.links',
      );
      return undefined;
    }
    return defaultLinksStore(store);
  }
  if (typeof links === 'string') {
    if (!/^[a-z][a-z0-9+]*:\/\//.test(links))
      throw new TypeError(
        'authKoa: accounts.links must be a state store URI (lmdb://, postgres://, …) or a StateStore',
      );
    requireDurable(
      { volatile: links.startsWith('memory://') },
      'authKoa: accounts.links',
      'every link between an identity and its account',
      ctx.allowVolatileStores,
      'lmdb://<path>, postgres://…, mongodb://…, redis:// with persistence',
    );
    return links;
  }
  if (!isStateStore(links))
    throw new TypeError('authKoa: accounts.links must be a state store URI or an object with the StateStore methods');
  requireDurable(
    links,
    'authKoa: accounts.links',
    'every link between an identity and its account',
    ctx.allowVolatileStores,
    'lmdb://<path>, postgres://…, mongodb://…',
  );
  return links;
}

/**
 * The links' store beside the accounts': `lmdb://<path>-links` (an environment of its own), a MongoDB URI's
 * `<accounts collection>_links` collection in the accounts' database, the same PostgreSQL database (a table of its
 * own), memory for memory.
 */
export function defaultLinksStore(accounts: string): string {
  if (accounts.startsWith('lmdb://')) return `${accounts.replace(/\/+$/, '')}-links`;
  if (!/^mongodb(\+srv)?:\/\//.test(accounts)) return accounts;
  const query = accounts.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : accounts.slice(query + 1));
  const db = params.get('accounts_db');
  const coll = params.get('accounts_coll') || 'accounts';
  params.delete('accounts_db');
  params.delete('accounts_coll');
  if (db) params.set('state_db', db);
  params.set('state_coll', `${coll}_links`);
  const base = query < 0 ? accounts : accounts.slice(0, query);
  // `mongodb://host` takes its options after a slash: `mongodb://host/?…`.
  return `${/^mongodb(\+srv)?:\/\/[^/]*\//.test(base) ? base : `${base}/`}?${params}`;
}

function readTrustEmail(trustEmail: unknown): readonly string[] {
  if (trustEmail === undefined) return [];
  if (!Array.isArray(trustEmail) || !trustEmail.every((n) => typeof n === 'string' && n !== ''))
    throw new TypeError("authKoa: accounts.trustEmail must be a list of provider names: ['google']");
  return Object.freeze([...(trustEmail as string[])]);
}

function readResetRevokes(input: unknown): readonly ResetRevocable[] {
  if (input === undefined) return RESET_REVOCABLE;
  const known = RESET_REVOCABLE.map((k) => `'${k}'`).join(', ');
  if (!Array.isArray(input)) throw new TypeError(`authKoa: accounts.resetRevokes must be a list of ${known}`);
  for (const entry of input as unknown[])
    if (!(RESET_REVOCABLE as readonly unknown[]).includes(entry))
      throw new TypeError(`authKoa: accounts.resetRevokes: ${JSON.stringify(entry)} is not one of ${known}`);
  return Object.freeze([...new Set(input as ResetRevocable[])]);
}
