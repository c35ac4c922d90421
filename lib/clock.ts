/**
 * Whole seconds since the epoch, read from the system clock at most once per second of wall time. Every
 * authenticated request compares a token's `exp` with the time; `Date.now()` was the single most expensive
 * call left on that path in a profile under load, and `exp` has one-second resolution anyway. Node's own
 * `Date` response header is cached the same way. The value is dropped at the next second boundary by a
 * timer; a timer that fires late (a blocked event loop) leaves it stale by that delay at most.
 */
let cached: number | undefined;

function forget(): void {
  cached = undefined;
}

export function secondsNow(): number {
  if (cached === undefined) {
    const ms = Date.now();
    cached = Math.floor(ms / 1000);
    setTimeout(forget, 1000 - (ms % 1000)).unref();
  }
  return cached;
}
