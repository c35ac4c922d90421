import { randomBytes } from 'node:crypto';
import { hashPassword, OWASP_SCRYPT, type ScryptParams } from './password-hash.js';
import { DEFAULT_POLICY, passwordProblem, type PasswordPolicy } from './password-policy.js';
import { AccountError } from './errors.js';
import { normalizeEmail, type Account, type AccountStore, type StoredAccount } from './store.js';

/**
 * What an operator does to accounts, over any AccountStore: create one (with or without a password,
 * confirmed or not), find one by address or id, set a password, delete one, page through them. The
 * accounts feature's admin API (`auth.accounts`) and `authctl accounts` are this, with the feature adding
 * what needs the running service (ending sessions, events, links).
 */
export interface AccountsAdmin {
  create(input: NewAccount): Promise<Account>;
  /** The account with this address (any case) or id; undefined when there is none. */
  find(emailOrId: string): Promise<StoredAccount | undefined>;
  /** Hashes and stores a new password for the account (by address or id), checked against the policy. */
  setPassword(emailOrId: string, password: string): Promise<Account>;
  /** Deletes the account (by address or id); false when there was none. */
  delete(emailOrId: string): Promise<boolean>;
  list(page?: { after?: string; limit?: number }): Promise<Account[]>;
}

export interface NewAccount {
  email: string;
  password?: string;
  name?: string;
  /** The address is taken as confirmed (an operator who knows it is the owner's); default false. */
  confirmed?: boolean;
}

export interface AccountsAdminOptions {
  policy?: PasswordPolicy;
  scrypt?: ScryptParams;
  clock?: () => number;
}

/** A new account id: 120 random bits, URL-safe, never derived from the address. */
export function newAccountId(): string {
  return `acct_${randomBytes(15).toString('base64url')}`;
}

export function accountsAdmin(store: AccountStore, opts: AccountsAdminOptions = {}): AccountsAdmin {
  const policy = opts.policy ?? DEFAULT_POLICY;
  const scrypt = opts.scrypt ?? OWASP_SCRYPT;
  const clock = opts.clock ?? Date.now;
  const find = async (emailOrId: string) => {
    const email = normalizeEmail(emailOrId);
    return email === undefined ? store.get(emailOrId) : store.findByEmail(email);
  };
  const checked = async (password: string, owner: { email: string; name?: string }) => {
    const problem = await passwordProblem(password, owner, policy);
    if (problem) throw new AccountError('weak_password', `the password is refused: ${problem}`, problem);
    return hashPassword(password, scrypt);
  };

  return {
    async create(input) {
      const email = normalizeEmail(input.email);
      if (email === undefined) throw new AccountError('invalid_email', 'email must be one plain address');
      const now = clock();
      const account: Account = {
        id: newAccountId(),
        email,
        emailConfirmed: input.confirmed === true,
        ...(input.name !== undefined && { name: input.name }),
        ...(input.password !== undefined && {
          passwordHash: await checked(input.password, { email, name: input.name }),
        }),
        createdAt: now,
        updatedAt: now,
      };
      if (!(await store.create(account))) throw new AccountError('email_taken', `${email} has an account already`);
      return account;
    },
    find,
    async setPassword(emailOrId, password) {
      const cur = await find(emailOrId);
      if (!cur) throw new AccountError('not_found', 'no such account');
      const { rev, ...fields } = cur;
      const next = { ...fields, passwordHash: await checked(password, cur), updatedAt: clock() };
      const done = await store.update(next, rev);
      if (done !== 'updated') throw new AccountError('changed', 'the account changed meanwhile: try again');
      return next;
    },
    async delete(emailOrId) {
      const cur = await find(emailOrId);
      return cur ? store.delete(cur.id, cur.rev) : false;
    },
    list: (page) => store.list(page),
  };
}

export { AccountError };
