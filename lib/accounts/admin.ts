import { randomBytes } from 'node:crypto';
import { hashPassword, OWASP_SCRYPT, type ScryptParams } from './password-hash.js';
import { DEFAULT_POLICY, passwordProblem, type PasswordPolicy } from './password-policy.js';
import { AccountError } from './errors.js';
import { accountFields, normalizeEmail, type Account, type AccountStore, type StoredAccount } from './store.js';
import { accountIdIn } from './user-ids.js';

/**
 * What an operator does to accounts, over any AccountStore: create one (with or without a password,
 * confirmed or not), find one, set a password, delete one, page through them. An account is named by its
 * address (any case), its id (`acct_…`) or its session user id (`local_acct_…`) alike; an unknown one is an
 * AccountError `not_found` naming it. No answer carries the password hash. The accounts feature's admin API
 * (`auth.accounts`) and `authctl accounts` are this, with the feature adding what needs the running service
 * (ending sessions, events, links).
 */
export interface AccountsAdmin {
  create(input: NewAccount): Promise<AccountView>;
  /** The account with this address, id or user id; undefined when there is none. */
  find(who: string): Promise<AccountView | undefined>;
  /** Hashes and stores a new password for the account, checked against the policy. */
  setPassword(who: string, password: string): Promise<AccountView>;
  /** Deletes the account; an AccountError `not_found` when there is none. */
  delete(who: string): Promise<true>;
  list(page?: { after?: string; limit?: number }): Promise<AccountView[]>;
}

/** An account as the admin calls answer it: never its password hash, whether it has one instead. */
export interface AccountView extends Omit<Account, 'passwordHash'> {
  hasPassword: boolean;
  /** Its session user id (`<prefix>_<id>`), once a password provider has run with the store (user-ids.ts). */
  userId?: string;
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
  /** The accounts' user-id prefix (user-ids.ts), when known: user ids are taken and `userId` is answered. */
  userIdPrefix?: () => Promise<string | undefined>;
}

/** The account as answered: its fields without the hash. */
export function accountView(a: Account, prefix: string | undefined): AccountView {
  const { passwordHash, ...fields } = accountFields(a);
  return {
    ...fields,
    hasPassword: passwordHash !== undefined,
    ...(prefix !== undefined && { userId: `${prefix}_${a.id}` }),
  };
}

/** `who` checked: a TypeError naming the argument when it is not a non-empty string. */
function whoOf(who: unknown, method: string): string {
  if (typeof who !== 'string' || who.trim() === '' || who.length > 512)
    throw new TypeError(`${method}(): the account must be its address, its id (acct_…) or its user id`);
  return who.trim();
}

/**
 * The stored account `who` names: an address (any case), an account id, or a session user id of the accounts;
 * undefined when it names none.
 */
export async function lookUpAccount(
  store: AccountStore,
  who: string,
  prefix: () => Promise<string | undefined>,
): Promise<StoredAccount | undefined> {
  if (who.includes('@')) {
    const email = normalizeEmail(who);
    return email === undefined ? undefined : store.findByEmail(email);
  }
  const byId = await store.get(who);
  if (byId) return byId;
  const held = await prefix();
  const id = held === undefined ? undefined : accountIdIn(who, held);
  return id === undefined ? undefined : store.get(id);
}

/** A new account id: 120 random bits, URL-safe, never derived from the address. */
export function newAccountId(): string {
  return `acct_${randomBytes(15).toString('base64url')}`;
}

export function accountsAdmin(store: AccountStore, opts: AccountsAdminOptions = {}): AccountsAdmin {
  const policy = opts.policy ?? DEFAULT_POLICY;
  const scrypt = opts.scrypt ?? OWASP_SCRYPT;
  const clock = opts.clock ?? Date.now;
  const prefix = opts.userIdPrefix ?? (() => Promise.resolve(undefined));
  const view = async (a: Account) => accountView(a, await prefix());
  const found = async (who: unknown, method: string) => {
    const name = whoOf(who, method);
    const account = await lookUpAccount(store, name, prefix);
    if (!account) throw new AccountError('not_found', `no account ${name}`);
    return account;
  };
  const checked = async (password: string, owner: { email: string; name?: string }) => {
    const problem = await passwordProblem(password, owner, policy);
    if (problem) throw new AccountError('weak_password', `the password is refused: ${problem}`, problem);
    return hashPassword(password, scrypt);
  };

  return {
    async create(input) {
      const email = normalizeEmail(input?.email);
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
      return view(account);
    },
    async find(who) {
      const account = await lookUpAccount(store, whoOf(who, 'find'), prefix);
      return account && view(account);
    },
    async setPassword(who, password) {
      const { rev, ...cur } = await found(who, 'setPassword');
      const next = { ...cur, passwordHash: await checked(password, cur), updatedAt: clock() };
      const done = await store.update(next, rev);
      if (done !== 'updated') throw new AccountError('changed', 'the account changed meanwhile: try again');
      return view(next);
    },
    async delete(who) {
      const cur = await found(who, 'delete');
      if (!(await store.delete(cur.id, cur.rev)))
        throw new AccountError('changed', 'the account changed meanwhile: try again');
      return true;
    },
    async list(page) {
      const held = await prefix();
      return (await store.list(page)).map((a) => accountView(a, held));
    },
  };
}

export { AccountError };
