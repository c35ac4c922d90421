/**
 * Server-side login state that must outlive one request: ids of one-shot tokens already spent.
 * The interface is tiny on purpose, so a shared store (LMDB, MongoDB, Redis) can back it when the
 * application runs more than one process; the in-memory default only protects a single process.
 */

import { promised } from '../util/promised.js';

/** Remembers spent one-shot token ids until the tokens themselves expire. */
export interface UsedTokenStore {
  /**
   * Marks `id` as used until `expiresAtMs` (ms since the epoch). Resolves true when this call marked
   * it, false when it was already marked and not yet expired. Must be atomic across the processes
   * sharing the store: of two concurrent calls with one id exactly one may see true.
   */
  markUsed(id: string, expiresAtMs: number): Promise<boolean>;
  /** Releases resources (connections, timers). Optional. */
  close?(): Promise<void>;
}

/** Options of memoryUsedTokenStore(). */
export interface MemoryUsedTokenStoreOptions {
  /** Clock in ms since the epoch; tests inject one. Default Date.now. */
  clock?: () => number;
  /** Sweep expired entries every this many inserts. Default 256. */
  sweepEvery?: number;
}

/**
 * An in-process UsedTokenStore. Expired ids are swept every `sweepEvery` inserts instead of by a
 * timer, so an idle process holds nothing that keeps it alive and tests need no teardown.
 */
export function memoryUsedTokenStore(
  opts: MemoryUsedTokenStoreOptions = {},
): UsedTokenStore & { readonly size: number } {
  const clock = opts.clock ?? Date.now;
  const sweepEvery = opts.sweepEvery ?? 256;
  const used = new Map<string, number>();
  let inserts = 0;

  const sweep = (now: number) => {
    for (const [id, until] of used) if (until <= now) used.delete(id);
  };

  return {
    get size() {
      return used.size;
    },
    markUsed: (id, expiresAtMs) =>
      promised(() => {
        if (typeof id !== 'string' || id === '') throw new TypeError('markUsed() requires a non-empty id');
        const now = clock();
        const until = used.get(id);
        if (until !== undefined && until > now) return false;
        // An id whose token already expired is still remembered briefly: the caller refuses the token
        // for its expiry anyway, and a marker costs less than a second code path.
        used.set(id, Math.max(expiresAtMs, now + 60_000));
        if (++inserts % sweepEvery === 0) sweep(now);
        return true;
      }),
    close() {
      used.clear();
      return Promise.resolve();
    },
  };
}
