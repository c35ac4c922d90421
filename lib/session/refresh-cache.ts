import type { Claims } from './claims.js';

/**
 * Remembers refreshed claims by the old token, so requests that still carry it after its refresh are not re-issued
 * again (concurrent ones share one refresh in any case).
 */
export interface RefreshCache {
  get(oldToken: string): Claims | undefined;
  set(oldToken: string, claims: Claims): void;
}

/** In-memory RefreshCache: bounded, entries dropped once the refreshed token itself expires. */
export function memoryRefreshCache(clock: () => number, max = 10_000): RefreshCache {
  const entries = new Map<string, Claims>();
  return {
    get(oldToken) {
      const c = entries.get(oldToken);
      if (c && (c.exp ?? 0) * 1000 > clock()) return c;
      if (c) entries.delete(oldToken);
      return undefined;
    },
    set(oldToken, claims) {
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entries.set(oldToken, claims);
    },
  };
}
