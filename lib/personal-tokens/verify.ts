import { safeEqual } from '../util/safe-equal.js';
import type { TokenCache } from './cache.js';
import { tokenHash, wellFormed } from './format.js';
import type { PersonalToken, PersonalTokenStore } from './store.js';

/**
 * How a request's `Authorization: Bearer <token>` becomes its owner: the per-process cache first (a hot token is
 * answered at once, without a promise), then the shape and checksum (a made-up or mistyped token reads no store),
 * then the store; a use is recorded at most once a minute, after the answer, and its failure never refuses the
 * request.
 */
export interface TokenVerifier {
  /**
   * The live token, or undefined for a malformed, unknown, revoked or expired one: synchronously when the cache
   * knows it, else once the store answered.
   */
  verify(token: string): PersonalToken | undefined | Promise<PersonalToken | undefined>;
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
  const touch = (key: string, token: PersonalToken, now: number) => {
    if (token.lastUsed !== undefined && now - token.lastUsed < 60_000) return;
    cache.update(key, { ...token, lastUsed: now });
    store.touch(token, now).catch((err: unknown) => onTouchFailed?.(err));
  };
  const live = (key: string, found: PersonalToken | null, now: number) => {
    if (!found || (found.expires !== undefined && now >= found.expires)) return undefined;
    touch(key, found, now);
    return found;
  };
  // Revocations heard so far (made here, or told by the channel): a lookup that one overtook keeps its answer
  // out of the cache, where it would outlive the revocation that had already dropped the entry.
  let revocations = 0;
  const lookUp = async (token: string, now: number) => {
    const hash = tokenHash(token);
    const before = revocations;
    let found = (await store.findByHash(hash, now)) ?? null;
    // The key found it; the stored hash is still compared, in constant time, before it counts.
    if (found && !safeEqual(found.hash, hash)) found = null;
    // Its scopes are handed to every request it authenticates (ctx.state.auth): none may change them.
    if (found) Object.freeze(found.scopes);
    if (revocations === before) cache.set(token, found, now);
    return live(token, found, now);
  };
  return {
    verify(token) {
      const now = clock();
      const cached = cache.get(token, now);
      if (cached !== undefined) return live(token, cached, now);
      // Only a well-formed token is looked up, and cached: a malformed one is refused by its shape each time.
      return wellFormed(token, prefix) ? lookUp(token, now) : undefined;
    },
    revoked(token) {
      revocations++;
      cache.forget(token.hash);
    },
  };
}
