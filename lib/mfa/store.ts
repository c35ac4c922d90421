import { createHash } from 'node:crypto';
import { isStateStore, type StateStore } from '../state/types.js';

/** One user's second factors, as the factor store keeps them. Never in a token, never in the short-lived stateStore. */
export interface UserFactors {
  /** The active TOTP key, sealed (seal.ts), and when it was turned on (ms). */
  totp?: { secret: string; createdAt: number };
  /** A key set up but not yet confirmed with a code: not active. */
  pendingTotp?: { secret: string; createdAt: number };
  /** Hashes (hashRecoveryCode) of the recovery codes not yet used. */
  recoveryCodes?: string[];
}

/**
 * Where second factors live (the `mfa.store` option): a state store URI's backend, or an application's
 * own. Writes are compare-and-set, atomic across processes.
 */
export interface FactorStore {
  /** The user's factors and their revision, or undefined when there are none. */
  get(userId: string): Promise<{ factors: UserFactors; rev: string } | undefined>;
  /**
   * Writes `factors` (or deletes the record when undefined) if the record still has revision `rev`
   * (undefined: only when there is none). True when written. Deleting with `rev` undefined asks for
   * "no record" when there is none already: true when there is none, false when there is one.
   */
  set(userId: string, factors: UserFactors | undefined, rev: string | undefined): Promise<boolean>;
  /** Optional: releases what the store holds. */
  close?(): Promise<void>;
}

/** The state store namespace factors live in. */
const NS = 'mfa';
/** Factors do not expire: the latest time a state store can hold. */
const FOREVER = 8_640_000_000_000_000;
/** Compare-and-set attempts before updateFactors() gives up on a record that keeps changing. */
const TRIES = 16;

/**
 * A FactorStore over a StateStore (namespace 'mfa', entries that never expire), so every state backend
 * keeps factors: one entry per user, written by create/replace/take against the revision read. The
 * store must be durable (memory forgets every factor at a restart; Redis needs persistence on). The
 * result has no close(): closing the StateStore stays with whoever opened it.
 */
export function stateFactorStore(store: StateStore): FactorStore {
  if (!isStateStore(store)) throw new TypeError('stateFactorStore() requires store as a StateStore');
  return {
    async get(userId) {
      const entry = await store.get<UserFactors>(NS, key(userId));
      return entry && { factors: entry.value, rev: entry.rev };
    },
    async set(userId, factors, rev) {
      const k = key(userId);
      if (factors !== undefined && (typeof factors !== 'object' || factors === null || Array.isArray(factors))) {
        throw new TypeError('FactorStore.set() requires factors as an object, or undefined to delete');
      }
      if (rev !== undefined && (typeof rev !== 'string' || rev === ''))
        throw new TypeError('FactorStore.set() requires rev as a non-empty string or undefined');
      if (factors === undefined)
        return rev === undefined ? (await store.get(NS, k)) === undefined : store.take(NS, k, rev);
      return rev === undefined ? store.create(NS, k, factors, FOREVER) : store.replace(NS, k, rev, factors, FOREVER);
    },
  };
}

/**
 * The store key of a user id: the id itself, or its SHA-256 when it is longer than a store key may be
 * (user ids come from providers; every state store takes keys of up to 512 characters).
 */
function key(userId: string): string {
  if (typeof userId !== 'string' || userId === '')
    throw new TypeError('the factor store requires userId as a non-empty string');
  return userId.length <= 512 ? userId : `sha256:${createHash('sha256').update(userId).digest('base64url')}`;
}

/** Sentinel a change returns to write nothing. */
export const UNCHANGED: unique symbol = Symbol('authkoa.mfa.unchanged');

/**
 * Applies `change` to the user's factors by compare-and-set, retrying on a lost race (16 tries, then an
 * Error naming the user). Resolves to what was written (or found, when the change returned UNCHANGED).
 * `change` may throw (an AuthError) to abort without writing. It runs once per try, against the record
 * as read that try, and gets a copy: a change that edits its argument in place cannot alter what an
 * application's store holds before the write is decided.
 */
export async function updateFactors(
  store: FactorStore,
  userId: string,
  change: (current: UserFactors | undefined) => UserFactors | undefined | typeof UNCHANGED,
): Promise<UserFactors | undefined> {
  if (typeof change !== 'function') throw new TypeError('updateFactors() requires change as a function');
  for (let i = 0; i < TRIES; i++) {
    const cur = await store.get(userId);
    const next = change(cur && structuredClone(cur.factors));
    if (next === UNCHANGED) return cur?.factors;
    if (await store.set(userId, next, cur?.rev)) return next;
  }
  throw new Error(`second factors of user ${JSON.stringify(userId)}: the record kept changing (${TRIES} tries)`);
}
