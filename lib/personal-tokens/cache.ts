import type { PersonalToken } from './store.js';

/**
 * The verified tokens of one process, so a request with a hot token reads no store: at most `maxEntries` (the
 * least recently used go first), each kept `ttlMs` at most, which is the delay the docs state for a revocation
 * made in another process to reach this one (a revocation made here forgets its entry at once). An unknown token
 * is kept too, as `null`, so a flood of well-formed made-up tokens costs one store read each per `ttlMs`, not one
 * per request.
 *
 * Entries are keyed by the token as presented, not by its hash: a hit then costs one Map lookup, where hashing
 * first took most of a request's authentication time. The tokens are in this process's memory while it serves
 * their requests anyway; none is ever written anywhere.
 */
export interface TokenCache {
  /** The token's record, `null` for one known not to exist, or undefined when the cache cannot say (read the store). */
  get(key: string, now: number): PersonalToken | null | undefined;
  set(key: string, token: PersonalToken | null, now: number): void;
  /** Replaces the record of a cached entry (its recorded use), keeping when the entry ends. */
  update(key: string, token: PersonalToken): void;
  /** Drops the entry of the token with this hash (a revocation in this process): a scan, as revocations are rare. */
  forget(hash: string): void;
  readonly size: number;
}

export interface TokenCacheOptions {
  maxEntries?: number;
  /** How long an entry is believed, in ms. */
  ttlMs: number;
}

interface Entry {
  token: PersonalToken | null;
  /** ms since the epoch: the entry's end, or the token's expiry when that comes first. */
  until: number;
}

export function tokenCache({ maxEntries = 10_000, ttlMs }: TokenCacheOptions): TokenCache {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  if (!(ttlMs >= 0)) throw new TypeError('ttlMs must be a duration of 0 or more');
  const entries = new Map<string, Entry>();
  return {
    get(key, now) {
      const e = entries.get(key);
      if (!e) return undefined;
      entries.delete(key);
      if (now >= e.until) return undefined;
      entries.set(key, e); // the most recently used goes last
      return e.token;
    },
    set(key, token, now) {
      if (ttlMs === 0) return;
      const until = Math.min(now + ttlMs, token?.expires ?? Infinity);
      entries.delete(key);
      entries.set(key, { token, until });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    update(key, token) {
      const e = entries.get(key);
      if (e) e.token = token;
    },
    forget(hash) {
      for (const [key, e] of entries) if (e.token?.hash === hash) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
