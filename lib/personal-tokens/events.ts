import type { AuthEventBase } from '../events/types.js';

/**
 * The personal tokens' events, declared by the feature (feature.ts `TOKEN_EVENTS`) and joined to the instance's
 * event map by declaration merging. None carries the token or its hash.
 */

/** A user made a token (`POST /auth/tokens`). */
export interface TokenCreatedEvent extends AuthEventBase {
  type: 'token_created';
  userId: string;
  tokenId: string;
  name: string;
  scopes: string[];
  /** ISO 8601; absent for a token that does not expire. */
  expires?: string;
}

/**
 * A token was revoked: by its owner, by an operator (`auth.tokens.revoke`, `authctl tokens revoke`), with its
 * account, or by a password reset of its account (`accounts.resetRevokes`).
 */
export interface TokenRevokedEvent extends AuthEventBase {
  type: 'token_revoked';
  userId: string;
  tokenId: string;
  by: 'user' | 'admin' | 'account_deleted' | 'password_reset';
}

declare module '../events/types.js' {
  interface AuthEventMap {
    token_created: TokenCreatedEvent;
    token_revoked: TokenRevokedEvent;
  }
}

/** The event types the personal tokens emit, in the order docs/events.md lists them. */
export const TOKEN_EVENTS = ['token_created', 'token_revoked'] as const;
