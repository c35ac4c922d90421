import type { PostgresOptions } from '../postgres/options.js';
import { loadWithPackage } from '../util/optional.js';
import type { AccountStore } from './store.js';

/**
 * Opens the account store an option names: `lmdb://<path>` (the embedded default; `lmdb:///abs` absolute,
 * `lmdb://rel` relative), `postgres://…` / `postgresql://…` (tables created on first open or by `authctl db
 * migrate`), `mongodb://…` / `mongodb+srv://…`, `memory://` (volatile: tests and demos), or an object that
 * implements AccountStore, returned as it is. Each backend loads when its URI is used. A bad value is a
 * TypeError naming `option`; the URI is not echoed, since it may carry a password.
 */
export async function openAccountStore(
  source: string | AccountStore,
  opts: PostgresOptions = {},
  option = 'accounts.store',
): Promise<AccountStore> {
  if (typeof source !== 'string') {
    if (isAccountStore(source)) return source;
    throw new TypeError(`${option} must be an account store URI or an object with the AccountStore methods`);
  }
  const scheme = /^([a-z][a-z0-9+]*):\/\//.exec(source)?.[1];
  switch (scheme) {
    case 'memory':
      return (await import('./memory-store.js')).memoryAccountStore();
    case 'lmdb': {
      const path = source.slice('lmdb://'.length);
      if (path === '') throw new TypeError(`${option}: lmdb:// needs a path (lmdb://data/accounts)`);
      return (await import('./lmdb-store.js')).lmdbAccountStore(path);
    }
    case 'postgres':
    case 'postgresql':
      // Through loadWithPackage, as every store option: without the package, one line naming it and `npm install`.
      return (
        await loadWithPackage('pg', `${option} postgres://`, () => import('./postgres-store.js'))
      ).openPostgresAccountStore(source, opts, option);
    case 'mongodb':
    case 'mongodb+srv':
      return (
        await loadWithPackage('mongodb', `${option} mongodb://`, () => import('./mongodb-store.js'))
      ).openMongoAccountStore(source);
    default:
      throw new TypeError(
        `${option}: unknown scheme (use lmdb://<path>, postgres://, mongodb://, memory:// or an AccountStore object)`,
      );
  }
}

const METHODS = ['create', 'get', 'findByEmail', 'update', 'delete', 'list', 'close'] as const;

/** True when `value` has every AccountStore method. */
export function isAccountStore(value: unknown): value is AccountStore {
  return (
    typeof value === 'object' &&
    value !== null &&
    METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}
