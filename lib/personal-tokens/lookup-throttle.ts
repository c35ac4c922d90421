import type { Context } from 'koa';
import { clientKey } from '../http/client-key.js';
import { rateLimited } from '../http/respond.js';
import type { AuthError } from '../errors.js';
import type { Limiter } from '../state/limiter.js';

/**
 * Failed lookups of personal tokens, per client (its IPv4 address or IPv6 /64: clientKey()): a made-up token with a
 * valid checksum costs a store read, so a client that sends `limit` of them that the store does not know within
 * `window` is refused 429 `rate_limited` for what is left of the window, every personal token it presents, without
 * a store read. The failures are counted in the state store (the service's limiter), so every process sharing it
 * shares the count; each process remembers the clients it found locked out, so their further requests cost nothing.
 * Only lookups that reached the store count: a malformed token, or one the cache answers, costs no read.
 */
export interface LookupThrottle {
  /** The refusal of a client this process knows is locked out (sets `Retry-After`), or undefined: go on. No I/O. */
  refusal(ctx: Context, now: number): AuthError | undefined;
  /** A lookup found nothing: counts it for the request's client. */
  failed(ctx: Context, now: number): Promise<void>;
}

export interface LookupThrottleConfig {
  /** Failed lookups a client may make per window. */
  limit: number;
  windowMs: number;
}

/** Clients remembered as locked out, at most: past it, those whose lock-out ended go, then the oldest. */
const MAX_LOCKED = 10_000;

export function lookupThrottle(config: LookupThrottleConfig, limiter: Limiter): LookupThrottle {
  const { limit, windowMs } = config;
  /** Locked-out clients by key: until when, in ms since the epoch. */
  const locked = new Map<string, number>();
  const lock = (client: string, until: number, now: number) => {
    locked.delete(client);
    locked.set(client, until);
    if (locked.size <= MAX_LOCKED) return;
    for (const [k, u] of locked) if (u <= now) locked.delete(k);
    while (locked.size > MAX_LOCKED) locked.delete(locked.keys().next().value!);
  };
  return {
    refusal(ctx, now) {
      if (locked.size === 0) return undefined; // the usual case: no client computed, nothing looked up
      const client = clientKey(ctx.ip);
      const until = locked.get(client);
      if (until === undefined) return undefined;
      if (until <= now) return void locked.delete(client);
      return rateLimited(ctx, until - now, 'too many unknown personal access tokens from this client, try again later');
    },
    async failed(ctx, now) {
      const client = clientKey(ctx.ip);
      // The store's counter allows `limit - 1`: the failure it refuses is the limit-th, which locks the client out
      // here at once, so the next token it sends is refused without a read, in this process as in the others.
      const wait = await limiter.hit([{ key: `pat-lookup:${client}`, limit: Math.max(1, limit - 1) }], windowMs);
      if (wait !== undefined) lock(client, now + wait, now);
      else if (limit === 1) lock(client, now + windowMs, now);
    },
  };
}
