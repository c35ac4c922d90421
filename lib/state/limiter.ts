import { checkLimitKeys, type LimitKey, type StateStore } from './types.js';

export type { LimitKey } from './types.js';

/**
 * Fixed-window rate limits: how many attempts a key (an address, an IP, a user name) may make per
 * window. Backed by a StateStore, so processes that share the store share the counts: N processes
 * allow a limit once, not N times.
 */
export interface Limiter {
  /**
   * Counts one hit on every key when none of them is at its limit and resolves undefined; otherwise
   * counts nothing and resolves the milliseconds until the first blocking window ends.
   */
  hit(keys: readonly LimitKey[], windowMs: number): Promise<number | undefined>;
}

/** The namespace counters live in. */
export const LIMIT_NS = 'limit';

/**
 * A Limiter over `store`: the store's own atomic hit() when it has one (memory, LMDB, Redis), else
 * compare-and-set through create/get/replace (MongoDB, third-party stores).
 */
export function stateLimiter(store: StateStore, clock: () => number): Limiter {
  return {
    hit: (keys, windowMs) => hitIn(store, LIMIT_NS, keys, windowMs, clock),
  };
}

/** One hit() on `store`: its own when it has one, else by compare-and-set. */
export async function hitIn(
  store: StateStore,
  ns: string,
  keys: readonly LimitKey[],
  windowMs: number,
  clock: () => number,
): Promise<number | undefined> {
  if (store.hit) return store.hit(ns, keys, windowMs);
  checkLimitKeys(ns, keys, windowMs);
  return casHit(store, ns, keys, windowMs, clock);
}

/** A window as the synchronous stores keep it: hits so far and when the window ends. */
export interface Window {
  count: number;
  endsAt: number;
}

/**
 * The fixed-window rule for stores that can read and write synchronously inside one transaction
 * (memory; LMDB in a write transaction): check every key first, count only when none is at its limit.
 */
export function countHits(
  keys: readonly LimitKey[],
  windowMs: number,
  now: number,
  read: (key: string) => Window | undefined,
  write: (key: string, w: Window) => void,
): number | undefined {
  let wait: number | undefined;
  for (const { key, limit } of keys) {
    const w = read(key);
    if (w && w.endsAt > now && w.count >= limit) wait = Math.max(wait ?? 0, w.endsAt - now);
  }
  if (wait !== undefined) return wait;
  for (const { key } of keys) {
    const w = read(key);
    write(key, w && w.endsAt > now ? { count: w.count + 1, endsAt: w.endsAt } : { count: 1, endsAt: now + windowMs });
  }
  return undefined;
}

/** Attempts before a contended counter gives up and refuses (a conflict every time means a flood on one key). */
const CAS_TRIES = 16;

/**
 * The same rule through compare-and-set: a first pass refuses when a key is at its limit; then each
 * key is counted by create() (a new window) or replace() at the revision read, retried on a conflict.
 * Counting is atomic per key, so of N racing hits on a key with room for one exactly one is allowed;
 * across keys it is not one transaction, so a hit refused by its second key may have counted on its first.
 */
async function casHit(
  store: StateStore,
  ns: string,
  keys: readonly LimitKey[],
  windowMs: number,
  clock: () => number,
): Promise<number | undefined> {
  const now = clock();
  let wait: number | undefined;
  for (const { key, limit } of keys) {
    const e = await store.get<number>(ns, key);
    if (e && e.expiresAt > now && e.value >= limit) wait = Math.max(wait ?? 0, e.expiresAt - now);
  }
  if (wait !== undefined) return wait;
  for (const { key, limit } of keys) {
    const blocked = await casCount(store, ns, key, limit, windowMs, now);
    if (blocked !== undefined) wait = Math.max(wait ?? 0, blocked);
  }
  return wait;
}

async function casCount(
  store: StateStore,
  ns: string,
  key: string,
  limit: number,
  windowMs: number,
  now: number,
): Promise<number | undefined> {
  for (let i = 0; i < CAS_TRIES; i++) {
    const e = await store.get<number>(ns, key);
    if (!e || e.expiresAt <= now) {
      if (await store.create(ns, key, 1, now + windowMs)) return undefined;
    } else if (e.value >= limit) {
      return e.expiresAt - now;
    } else if (await store.replace(ns, key, e.rev, e.value + 1, e.expiresAt)) {
      return undefined;
    }
  }
  return windowMs; // contended beyond reason: refuse rather than let a flood through
}
