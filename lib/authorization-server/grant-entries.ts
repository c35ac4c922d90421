import { createHash, randomBytes } from 'node:crypto';
import type { StateEntry, StateStore } from '../state/types.js';

/**
 * What the grant store's files share: its namespaces in the state store, how keys and secrets are made, and the
 * compare-and-set loop every entry that several processes change goes through.
 */

export const NS = {
  /** sha256(code) → the grant until redeemed, then the family it started (replay detection). */
  code: 'as-code',
  /** family id → the family, while a token of it may live. */
  family: 'as-family',
  /** sha256(refresh token) → its family; kept spent after rotation to recognise a reuse. */
  refresh: 'as-refresh',
  /** family id → the mark of a revoked family. */
  revoked: 'as-revoked',
  /** sha256(user id) → the user's clients and families (the store has no listing). */
  user: 'as-user',
  /** sha256([user id, client id]) → what the user allowed the client. */
  consent: 'as-consent',
  /** sha256(client id) → the users holding a grant of the client (revokeClient(); client-index.ts). */
  client: 'as-client-users',
} as const;

/** Tries of a compare-and-set before giving up: only a storm of writers on one entry loses this often. */
export const TRIES = 16;

/** SHA-256, base64url: the key of a secret (codes, refresh tokens), so no secret is ever written. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** The key of several ids together (user and client): hashed as JSON, so no separator can be forged. */
export function keyOf(...ids: string[]): string {
  return sha256(JSON.stringify(ids));
}

/** A code or refresh token: 256 random bits, base64url. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** A family id: 128 random bits, base64url; public (access tokens carry it), so no secret. */
export function newFamilyId(): string {
  return randomBytes(16).toString('base64url');
}

/** True when every member of `asked` is in `allowed`. */
export function subset(asked: readonly string[], allowed: readonly string[]): boolean {
  return asked.every((x) => allowed.includes(x));
}

/** The members of the lists, each once, in the order first met. */
export function union(...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}

/** Reads or writes this many entries at once at most: a user's thousands of families must not drain a pool. */
const BATCH = 16;

/** `fn` of each item, BATCH at a time; the results in the items' order. */
export async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(...(await Promise.all(items.slice(i, i + BATCH).map(fn))));
  return out;
}

/** A change of an entry: what to write and until when, null to delete it, undefined to leave it as it is. */
export type Change<V> = { value: V; expiresAt: number } | null | undefined;

/**
 * Changes one entry by compare-and-set, reading it again whenever another writer got there first. `change` sees
 * the live entry (or undefined: none, or one past `now` by the grant store's clock) and may run several times, so
 * it computes and records, never acts. Resolves once a change was written or none was needed.
 */
export async function updateEntry<V>(
  state: StateStore,
  ns: string,
  key: string,
  now: () => number,
  change: (live: StateEntry<V> | undefined) => Change<V>,
): Promise<void> {
  for (let i = 0; i < TRIES; i++) {
    const cur = await state.get<V>(ns, key);
    const live = cur && cur.expiresAt > now() ? cur : undefined;
    const next = change(live);
    if (next === undefined) return;
    if (next === null) {
      if (!cur || (await state.take(ns, key, cur.rev))) return;
      continue;
    }
    if (cur && (await state.replace(ns, key, cur.rev, next.value, next.expiresAt))) return;
    // create() only for a change computed from no entry: one made from a live entry that was deleted meanwhile (a
    // revocation) must be computed again, or it would bring back what the deletion removed.
    if (!live && (await state.create(ns, key, next.value, next.expiresAt))) return;
  }
  throw new Error(`authorization server: ${ns} entry kept changing while it was written`);
}
