import type { Broadcast } from '../state/broadcast.js';
import type { PersonalToken } from './store.js';

/**
 * Revoked personal tokens told to every process: each process keeps the tokens it verified in a cache for
 * `revocationDelay` (cache.ts), and a revocation made in another process would reach it only when the
 * entry ends. Published on the state store's broadcast (the channel the session revocations take), the
 * token's hash makes every process forget its entry at once, so its next use reads the store and is refused.
 * A store without a broadcast, or a channel that is down, leaves the delay the docs state.
 */

export const TOKENS_TOPIC = 'personal-tokens';

export interface TokenChannel {
  /** Tells every process (this one forgot its entry already). */
  revoked(token: Pick<PersonalToken, 'hash'>): Promise<void>;
  close(): void;
}

export function tokenChannel(
  broadcast: Broadcast | undefined,
  keepMs: number,
  forget: (token: Pick<PersonalToken, 'hash'>) => void,
): TokenChannel {
  const follower = broadcast?.follow(
    TOKENS_TOPIC,
    keepMs,
    (body) => {
      const hash = (body as { hash?: unknown } | null)?.hash;
      if (typeof hash === 'string') forget({ hash });
    },
    () => {},
  );
  return {
    revoked: (token) => broadcast?.publish(TOKENS_TOPIC, { hash: token.hash }, keepMs) ?? Promise.resolve(),
    close: () => follower?.close(),
  };
}
