import type { Database, RootDatabase } from 'lmdb';
import { openLmdbEnv } from '../util/lmdb-env.js';
import { rev } from '../state/types.js';
import { promised } from '../util/promised.js';
import {
  accountFields,
  checkAccount,
  pageLimit,
  type Account,
  type AccountStore,
  type AccountUpdate,
  type StoredAccount,
} from './store.js';

/** What one account holds on disk (msgpack): its fields and its revision. */
interface Row {
  a: Account;
  rev: string;
}

/**
 * Accounts in an LMDB environment (the embedded default), for the processes of one host: the accounts by
 * id, and beside them each address's account id. Every write runs in one LMDB write transaction, and LMDB
 * lets one writer in at a time across the processes that opened the environment, so a sign-up's "is the
 * address free, then take it" and an update's revision check are atomic host-wide. Give it its own path.
 */
export function lmdbAccountStore(path: string): AccountStore {
  if (typeof path !== 'string' || path === '') throw new TypeError('lmdbAccountStore requires a path');
  const root: RootDatabase = openLmdbEnv(path, 2);
  const accounts: Database<Row, string> = root.openDB<Row, string>({ name: 'accounts' });
  const emails: Database<string, string> = root.openDB<string, string>({ name: 'account-emails' });
  let closed = false;
  const open = (method: string) => {
    if (closed) throw new Error(`account store ${path}: ${method}() after close()`);
  };
  const row = (a: Account): Row => ({ a: accountFields(a), rev: rev() });
  const read = (id: string): StoredAccount | undefined => {
    const r = accounts.get(id);
    return r && { ...r.a, rev: r.rev };
  };

  return {
    async create(account) {
      open('create');
      checkAccount(account, 'create');
      return root.transaction(() => {
        if (accounts.get(account.id) !== undefined || emails.get(account.email) !== undefined) return false;
        void accounts.put(account.id, row(account)); // part of the transaction, which settles the write
        void emails.put(account.email, account.id);
        return true;
      });
    },
    get: (id) => promised(() => (open('get'), read(id))),
    findByEmail: (email) =>
      promised(() => {
        open('findByEmail');
        const id = emails.get(email);
        return id === undefined ? undefined : read(id);
      }),
    async update(account, rev) {
      open('update');
      checkAccount(account, 'update');
      return root.transaction((): AccountUpdate => {
        const cur = accounts.get(account.id);
        if (!cur || cur.rev !== rev) return 'conflict';
        const owner = emails.get(account.email);
        if (owner !== undefined && owner !== account.id) return 'email_taken';
        if (cur.a.email !== account.email) void emails.remove(cur.a.email);
        void emails.put(account.email, account.id);
        void accounts.put(account.id, row(account));
        return 'updated';
      });
    },
    async delete(id, rev) {
      open('delete');
      return root.transaction(() => {
        const cur = accounts.get(id);
        if (!cur || (rev !== undefined && cur.rev !== rev)) return false;
        void accounts.remove(id);
        void emails.remove(cur.a.email);
        return true;
      });
    },
    list: (page = {}) =>
      promised(() => {
        open('list');
        const limit = pageLimit(page.limit);
        const out: Account[] = [];
        for (const { key, value } of accounts.getRange(page.after === undefined ? {} : { start: page.after })) {
          if (key === page.after) continue;
          out.push(value.a);
          if (out.length === limit) break;
        }
        return out;
      }),
    async close() {
      if (closed) return;
      closed = true;
      await root.close();
    },
  };
}
