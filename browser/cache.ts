/**
 * The response cache of one client. Entries are keyed by the final ajax settings, stored when
 * a request succeeds, and valid while `now - storedAt <= ttl`, where ttl is the `cache` option
 * of the verb making the lookup.
 */
import { isUnder } from './url.js';
import type { AjaxSettings, RestCache, RestPromise } from './types.js';

interface Entry {
  readonly url: string;
  readonly result: RestPromise;
  readonly storedAt: number;
}

/** Serialises settings with sorted keys, so equal requests give equal keys; functions are skipped. */
export function cacheKey(settings: AjaxSettings): string {
  return stable(settings);
}

function stable(value: unknown): string {
  if (value === undefined || typeof value === 'function') return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined && typeof obj[k] !== 'function')
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable(obj[k])}`).join(',')}}`;
}

/** One client's cache. */
export class ResponseCache implements RestCache {
  private readonly entries = new Map<string, Entry>();

  /** Clock in ms; late-bound to `Date.now` so a page-level fake clock also works. */
  now: () => number = () => Date.now();

  /** Empties the cache; with a RegExp, removes only entries whose URL matches it. */
  clear(pattern?: RegExp): void {
    if (!pattern) {
      this.entries.clear();
      return;
    }
    for (const [key, entry] of this.entries) {
      pattern.lastIndex = 0;
      if (pattern.test(entry.url)) this.entries.delete(key);
    }
  }

  /** Number of stored entries. */
  get size(): number {
    return this.entries.size;
  }

  /** The stored result for `key` if it is younger than `ttlSeconds`. */
  get(key: string, ttlSeconds: number): RestPromise | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    return this.now() - entry.storedAt <= ttlSeconds * 1000 ? entry.result : undefined;
  }

  /** Stores a succeeded result, stamped with the current time. */
  put(key: string, url: string, result: RestPromise): void {
    this.entries.set(key, { url, result, storedAt: this.now() });
  }

  /** Removes every entry for the resource at `path` or beneath it (autoClearCache). */
  clearUnder(path: string): void {
    for (const [key, entry] of this.entries) {
      if (isUnder(entry.url, path)) this.entries.delete(key);
    }
  }
}
