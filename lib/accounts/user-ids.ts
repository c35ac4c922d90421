import type { StateStore } from '../state/types.js';

/**
 * One account, one user id (docs/accounts.md#one-account-one-user-id): an account's session user id is
 * `<prefix>_<account id>` whichever password provider (or linked identity) logged it in, so its second factor,
 * passkeys, personal tokens, sessions and links are found under one id. The prefix is the name of the first
 * password provider the app ever ran with — the id single-provider apps always had — recorded once in the links'
 * store, so reordering or adding password providers later changes no user's id.
 */

const META = 'idn-meta';
const PREFIX_KEY = 'password-prefix';
/** Recorded for good: the latest time a state store can hold. */
const FOREVER = 8_640_000_000_000_000;

/**
 * The recorded prefix; `first` (the first configured password provider) recorded when none is. Undefined when none
 * is recorded and `first` is undefined (a reader such as the CLI, which never records one).
 */
export async function recordedPrefix(store: StateStore, first: string | undefined): Promise<string | undefined> {
  const held = await store.get<string>(META, PREFIX_KEY);
  if (held) return held.value;
  if (first === undefined) return undefined;
  if (await store.create(META, PREFIX_KEY, first, FOREVER)) return first;
  // Another process recorded one meanwhile: theirs is the one.
  return (await store.get<string>(META, PREFIX_KEY))?.value ?? first;
}

/** An account id as authkoa makes them (admin.ts: `acct_` and 20 URL-safe characters), or an app's own id. */
export function isAccountIdForm(who: string): boolean {
  return /^acct_[A-Za-z0-9_-]{20}$/.test(who);
}

/** The account id a session user id of the accounts names (`<prefix>_<account id>`); undefined for any other. */
export function accountIdIn(userId: string, prefix: string): string | undefined {
  const head = `${prefix}_`;
  return userId.startsWith(head) && userId.length > head.length ? userId.slice(head.length) : undefined;
}
