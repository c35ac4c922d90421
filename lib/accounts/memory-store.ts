import { promised } from '../util/promised.js';
import {
  accountFields,
  checkAccount,
  pageLimit,
  type Account,
  type AccountStore,
  type StoredAccount,
} from './store.js';

/**
 * Accounts in the process's memory: for tests and demos only (`volatile`: every account is gone at the next
 * restart, so the accounts feature refuses it unless the application opts in). Each call is synchronous
 * inside, so its check and write cannot interleave with another's.
 */
export function memoryAccountStore(): AccountStore {
  const byId = new Map<string, StoredAccount>();
  const byEmail = new Map<string, string>();
  let writes = 0;
  let closed = false;
  const open = (method: string) => {
    if (closed) throw new Error(`account store: ${method}() after close()`);
  };
  const stored = (a: Account): StoredAccount => Object.freeze({ ...accountFields(a), rev: String(++writes) });
  const copy = (a: StoredAccount | undefined) => a && { ...a };

  return {
    volatile: true,
    create: (account) =>
      promised(() => {
        open('create');
        checkAccount(account, 'create');
        if (byId.has(account.id) || byEmail.has(account.email)) return false;
        byId.set(account.id, stored(account));
        byEmail.set(account.email, account.id);
        return true;
      }),
    get: (id) => promised(() => (open('get'), copy(byId.get(id)))),
    findByEmail: (email) =>
      promised(() => {
        open('findByEmail');
        const id = byEmail.get(email);
        return copy(id === undefined ? undefined : byId.get(id));
      }),
    update: (account, rev) =>
      promised(() => {
        open('update');
        checkAccount(account, 'update');
        const cur = byId.get(account.id);
        if (!cur || cur.rev !== rev) return 'conflict';
        const owner = byEmail.get(account.email);
        if (owner !== undefined && owner !== account.id) return 'email_taken';
        if (cur.email !== account.email) byEmail.delete(cur.email);
        byEmail.set(account.email, account.id);
        byId.set(account.id, stored(account));
        return 'updated';
      }),
    delete: (id, rev) =>
      promised(() => {
        open('delete');
        const cur = byId.get(id);
        if (!cur || (rev !== undefined && cur.rev !== rev)) return false;
        byId.delete(id);
        byEmail.delete(cur.email);
        return true;
      }),
    list: (page = {}) =>
      promised(() => {
        open('list');
        const limit = pageLimit(page.limit);
        const ids = [...byId.keys()].filter((id) => page.after === undefined || id > page.after).sort();
        return ids.slice(0, limit).map((id) => accountFields(byId.get(id)!));
      }),
    close: () => promised(() => void (closed = true)),
  };
}
