import type { PersonalToken } from './store.js';

/**
 * The verified tokens of one process, so a request with a hot token reads no store: at most `maxEntries` (the
 * least recently used go first), each kept `ttlMs` at most, which is the delay the docs state for a revocation
 * made in another process to reach this one (a revocation made here forgets its entry at once). An unknown token
 * is kept too, as `null`, so a flood of well-formed made-up tokens costs one store read each per `ttlMs`, not one
 * per request.
 */
export interface TokenCache {
  /** The token, `null` for one known not to exist, or undefined when the cache cannot say (read the store). */
  get(hash: string, now: number): PersonalToken | null | undefined;
  set(hash: string, token: PersonalToken | null, now: number): void;
  /** Replaces the token of a cached entry (its recorded use), keeping when the entry ends. */
  update(hash: string, token: PersonalToken): void;
  /** Drops the entry (a revocation in this process). */
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
    get(hash, now) {
      const e = entries.get(hash);
      if (!e) return undefined;
      entries.delete(hash);
      if (now >= e.until) return undefined;
      entries.set(hash, e); // the most recently used goes last
      return e.token;
    },
    set(hash, token, now) {
      if (ttlMs === 0) return;
      const until = Math.min(now + ttlMs, token?.expires ?? Infinity);
      entries.delete(hash);
      entries.set(hash, { token, until });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    update(hash, token) {
      const e = entries.get(hash);
      if (e) e.token = token;
    },
    forget(hash) {
      entries.delete(hash);
    },
    get size() {
      return entries.size;
    },
  };
}
