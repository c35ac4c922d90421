import { hashPassword, needsRehash, OWASP_SCRYPT, verifyPassword, type ScryptParams } from './password-hash.js';
import { normalizeEmail, type AccountStore, type StoredAccount } from './store.js';

/**
 * A password login against the accounts store, the same work whatever the answer: an unknown address,
 * an account without a password and a wrong password each cost one scrypt derivation under the current
 * parameters, as a right one does (against a dummy hash made once), so neither the answer nor its time
 * tells whether an address has an account. A hash made under older parameters is made again on success.
 */

/** What a password login found: the account (right password), or why not. */
export type PasswordCheck =
  | { result: 'ok'; account: StoredAccount }
  /** The password is right but the address was never confirmed: the caller sends a new link, answers 403. */
  | { result: 'unconfirmed'; account: StoredAccount }
  /** Unknown address, no password, or a wrong one: one answer for all three. */
  | { result: 'wrong' };

export interface PasswordLoginOptions {
  scrypt?: ScryptParams;
  clock?: () => number;
  /** Told when a hash could not be written again (the login still succeeds). */
  onRehashFailed?: (err: unknown) => void;
  /** The hash check itself (default verifyPassword): a test counts what each answer costs through it. */
  verify?: (password: string, phc: string) => Promise<boolean>;
}

/** Checks `email` and `password` against `store` (see the module comment); the store's failures reject. */
export function passwordLogin(store: AccountStore, opts: PasswordLoginOptions = {}) {
  const scrypt = opts.scrypt ?? OWASP_SCRYPT;
  const clock = opts.clock ?? Date.now;
  const verify = opts.verify ?? verifyPassword;
  // Made at the first login that needs it, then kept: a hash of nothing anyone can type.
  let dummy: Promise<string> | undefined;
  const dummyHash = () => (dummy ??= hashPassword(`\u0000unknown account ${clock()}`, scrypt));

  return async (email: string, password: string): Promise<PasswordCheck> => {
    const address = normalizeEmail(email);
    const account = address === undefined ? undefined : await store.findByEmail(address);
    if (!account?.passwordHash) {
      await verify(password, await dummyHash());
      return { result: 'wrong' };
    }
    if (!(await verify(password, account.passwordHash))) return { result: 'wrong' };
    const current = needsRehash(account.passwordHash, scrypt) ? await rehashed(account) : account;
    return { result: current.emailConfirmed ? 'ok' : 'unconfirmed', account: current };

    async function rehashed(a: StoredAccount): Promise<StoredAccount> {
      const { rev, ...fields } = a;
      const next = { ...fields, passwordHash: await hashPassword(password, scrypt), updatedAt: clock() };
      try {
        // A concurrent change wins; this login goes on with the account as read.
        if ((await store.update(next, rev)) === 'updated') return (await store.get(a.id)) ?? a;
      } catch (err) {
        opts.onRehashFailed?.(err);
      }
      return a;
    }
  };
}
