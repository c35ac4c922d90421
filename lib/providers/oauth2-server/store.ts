/**
 * Short-lived in-memory state of the local OAuth2 server: authorization codes, access tokens and
 * sign-in sessions. Entries expire by an injected clock (tests move time instead of sleeping) and the
 * maps are bounded, so a flood of logins costs memory up to a cap rather than without limit.
 */

const MAX_ENTRIES = 10_000;

/** A map whose entries expire after `ttlMs`, read by `clock`. */
export class Expiring<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly clock: () => number,
    private readonly max = MAX_ENTRIES,
  ) {}

  set(key: string, value: V, ttlMs = this.ttlMs): void {
    const now = this.clock();
    if (this.entries.size >= this.max) {
      for (const [k, e] of this.entries) if (e.until <= now) this.entries.delete(k);
      // Still full: drop the oldest (Map order is insertion order).
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, until: now + ttlMs });
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Gets and removes in one step: what makes authorization codes single-use. */
  take(key: string): V | undefined {
    const v = this.get(key);
    this.entries.delete(key);
    return v;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * A koa-session store over an Expiring map: the cookie carries only a random id, so the signed-in
 * user never travels in the cookie and signing out really ends the session on the server.
 */
export function memorySessionStore(clock: () => number, max = MAX_ENTRIES) {
  const map = new Expiring<unknown>(60 * 60_000, clock, max);
  return {
    // Nothing to wait for: koa-session awaits what these return.
    get(key: string): Promise<unknown> {
      return Promise.resolve(map.get(key));
    },
    set(key: string, sess: unknown, maxAge: number): Promise<void> {
      map.set(key, sess, typeof maxAge === 'number' && maxAge > 0 ? maxAge : undefined);
      return Promise.resolve();
    },
    destroy(key: string): Promise<void> {
      map.delete(key);
      return Promise.resolve();
    },
  };
}
