/**
 * Where accounts are kept: the contract every account store meets (memory for tests, LMDB, PostgreSQL,
 * MongoDB, or an application's own users table behind an object of this shape). The accounts feature
 * reads and writes through it only; spec/accounts/store-contract.ts is the test suite a store runs to
 * show it meets the contract.
 */

/** One account, as the store keeps it. Times are ms since the epoch. */
export interface Account {
  /** Stable and opaque: the session's user id is derived from it, never from the address. */
  id: string;
  /** Normalized (normalizeEmail): unique among the store's accounts. */
  email: string;
  /** The owner followed a link sent to `email`. */
  emailConfirmed: boolean;
  /** What the account's owner gave at sign-up, if anything. */
  name?: string;
  /** A PHC string (password-hash.ts); absent for an account made without a password. */
  passwordHash?: string;
  createdAt: number;
  updatedAt: number;
}

/** An account as read back, with its revision: update() and delete() succeed only against it. */
export interface StoredAccount extends Account {
  rev: string;
}

/** What update() did: written, or refused (the account changed since it was read; its new address is taken). */
export type AccountUpdate = 'updated' | 'conflict' | 'email_taken';

/**
 * The accounts of one application. Every write is atomic across the processes sharing the store: of two
 * racing sign-ups with one address, exactly one creates; of two updates from one revision, exactly one
 * writes. Addresses are compared exactly as given: callers pass them through normalizeEmail().
 */
export interface AccountStore {
  /** Adds the account; false when its id or its email belongs to an account already. */
  create(account: Account): Promise<boolean>;
  get(id: string): Promise<StoredAccount | undefined>;
  findByEmail(email: string): Promise<StoredAccount | undefined>;
  /** Writes `account` over the one with its id, if that one still has revision `rev`. */
  update(account: Account, rev: string): Promise<AccountUpdate>;
  /** Deletes the account, if it still has revision `rev` when one is given; true when this call deleted it. */
  delete(id: string, rev?: string): Promise<boolean>;
  /** Up to `limit` accounts (default 100) in id order, after the id `after`: a page of `authctl accounts list`. */
  list(page?: { after?: string; limit?: number }): Promise<Account[]>;
  /** Releases the connection or environment; further calls reject. */
  close(): Promise<void>;
  /** True for a store that forgets everything when its process ends: refused unless the application opts in. */
  readonly volatile?: boolean;
}

/** The longest address accepted (RFC 5321: 64 octets of local part, 255 of domain, 254 in a path). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * The address as accounts compare it: trimmed and lower-cased, or undefined when it is not one address
 * (exactly one `@`, a non-empty local part, a domain with a dot and no space, no control or angle-bracket
 * characters, at most 254 characters). Deliberately plain: no comments, quoted parts or display names,
 * which address parsers disagree on and an attacker picks between.
 */
export function normalizeEmail(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const email = input.trim().normalize('NFC').toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) return undefined;
  if (/[\s<>()[\]\\,;:"\u0000-\u001f\u007f]/.test(email)) return undefined;
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@') || at > 64) return undefined;
  const domain = email.slice(at + 1);
  if (!/^[^.@]+(\.[^.@]+)+$/.test(domain)) return undefined;
  return email;
}

/** Up to this many accounts per list() page. */
export const MAX_PAGE = 1000;

/** The page's size: `limit` when it is a whole number from 1 to MAX_PAGE, else a TypeError naming it. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new TypeError(`list(): limit must be an integer from 1 to ${MAX_PAGE}`);
  return limit;
}

/** The account checked before it is written: a TypeError naming the field a store would otherwise keep broken. */
export function checkAccount(account: Account, method: string): void {
  if (typeof account?.id !== 'string' || account.id === '' || account.id.length > 128)
    throw new TypeError(`${method}(): account.id must be a string of 1 to 128 characters`);
  if (normalizeEmail(account.email) !== account.email)
    throw new TypeError(`${method}(): account.email must be a normalized address (normalizeEmail)`);
  if (typeof account.emailConfirmed !== 'boolean')
    throw new TypeError(`${method}(): account.emailConfirmed must be a boolean`);
  for (const k of ['createdAt', 'updatedAt'] as const)
    if (!Number.isFinite(account[k])) throw new TypeError(`${method}(): account.${k} must be a time in ms`);
  if (account.passwordHash !== undefined && !account.passwordHash.startsWith('$'))
    throw new TypeError(`${method}(): account.passwordHash must be a PHC string, never a password`);
}

/** The account's own fields, copied: what a store writes (no revision, nothing else the caller added). */
export function accountFields(a: Account): Account {
  return {
    id: a.id,
    email: a.email,
    emailConfirmed: a.emailConfirmed,
    ...(a.name !== undefined && { name: a.name }),
    ...(a.passwordHash !== undefined && { passwordHash: a.passwordHash }),
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}
