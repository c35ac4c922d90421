import { safeEqual } from '../util/safe-equal.js';
import type { TokenCache } from './cache.js';
import { tokenHash, wellFormed } from './format.js';
import type { PersonalToken, PersonalTokenStore } from './store.js';

/**
 * How a request's `Authorization: Bearer <token>` becomes its owner: the shape and checksum first (a made-up or
 * mistyped token reads no store), then the per-process cache, then the store; a use is recorded at most once a
 * minute, after the answer, and its failure never refuses the request.
 */
export interface TokenVerifier {
  /** The live token, or undefined for a malformed, unknown, revoked or expired one. */
  verify(token: string): Promise<PersonalToken | undefined>;
  /** A revocation made in this process: its cached entry goes at once. */
  revoked(token: Pick<PersonalToken, 'hash'>): void;
}

export interface TokenVerifierParts {
  store: PersonalTokenStore;
  cache: TokenCache;
  prefix: string;
  clock: () => number;
  /** Told when recording a use failed (the store is down): the request goes on. */
  onTouchFailed?: (err: unknown) => void;
}

export function tokenVerifier({ store, cache, prefix, clock, onTouchFailed }: TokenVerifierParts): TokenVerifier {
  // The cached copy carries the use just recorded, so a hot token asks the store to record one a minute at most,
  // and its entry still ends when it would have: a revocation elsewhere is seen within the cache's ttl.
  const touch = (hash: string, token: PersonalToken, now: number) => {
    if (token.lastUsed !== undefined && now - token.lastUsed < 60_000) return;
    cache.update(hash, { ...token, lastUsed: now });
    store.touch(token, now).catch((err: unknown) => onTouchFailed?.(err));
  };
  return {
    async verify(token) {
      if (!wellFormed(token, prefix)) return undefined;
      const hash = tokenHash(token);
      const now = clock();
      let found = cache.get(hash, now);
      if (found === undefined) {
        found = (await store.findByHash(hash, now)) ?? null;
        // The key found it; the stored hash is still compared, in constant time, before it counts.
        if (found && !safeEqual(found.hash, hash)) found = null;
        // Its scopes are handed to every request it authenticates (ctx.state.auth): none may change them.
        if (found) Object.freeze(found.scopes);
        cache.set(hash, found, now);
      }
      if (!found || (found.expires !== undefined && now >= found.expires)) return undefined;
      touch(hash, found, now);
      return found;
    },
    revoked(token) {
      cache.forget(token.hash);
    },
  };
}

/** Whether the token holds every scope in `required` (none required: any token). */
export function hasScopes(token: Pick<PersonalToken, 'scopes'>, required: readonly string[]): boolean {
  return required.every((s) => token.scopes.includes(s));
}
