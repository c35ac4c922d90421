/**
 * A fixed-window request counter per key, in memory. Used where a request costs something outside
 * the process (the verified provider sends a message per request). Per process: a cluster of N
 * processes allows N times the limit, which is acceptable for flood protection.
 */
export interface WindowLimiter {
  /**
   * Counts one hit for every key when none of them is over its limit and returns undefined; otherwise
   * counts nothing and returns the milliseconds until the first blocking window ends.
   */
  hit(keys: ReadonlyArray<{ key: string; limit: number }>): number | undefined;
}

const MAX_KEYS = 100_000;

/** A limiter with windows of `windowMs`, reading time from `clock`. */
export function windowLimiter(windowMs: number, clock: () => number): WindowLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();

  const sweep = (now: number) => {
    for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
    // Still full after the sweep means a flood of distinct keys: forget the oldest windows rather than
    // grow without bound (a forgotten key merely starts a fresh window).
    for (const k of windows.keys()) {
      if (windows.size < MAX_KEYS) break;
      windows.delete(k);
    }
  };

  return {
    hit(keys) {
      const now = clock();
      let wait: number | undefined;
      for (const { key, limit } of keys) {
        const w = windows.get(key);
        if (w && w.resetAt > now && w.count >= limit) wait = Math.max(wait ?? 0, w.resetAt - now);
      }
      if (wait !== undefined) return wait;
      if (windows.size >= MAX_KEYS) sweep(now);
      for (const { key } of keys) {
        const w = windows.get(key);
        if (w && w.resetAt > now) w.count++;
        else {
          windows.delete(key); // re-insert so Map order stays oldest-first for the sweep
          windows.set(key, { count: 1, resetAt: now + windowMs });
        }
      }
      return undefined;
    },
  };
}
