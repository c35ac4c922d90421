import { AuthError } from '../errors.js';
import type { User } from '../user.js';
import type { Claims } from './claims.js';

/** The request's full session: its user and, when a token brought it, the token's claims (none for basic auth). */
export interface SessionOf {
  user: User;
  claims: Claims | undefined;
}

/**
 * Step-up's rule: throws 401 `reauth_required` unless the session's login (`auth_time`) is at most
 * `maxAgeMs` old. Basic auth, whose password came with this very request, is fresh; a token without
 * `auth_time` (minted by the application) is not.
 */
export function requireFresh(session: SessionOf, maxAgeMs: number, nowMs: number): void {
  if (!session.claims) return;
  const at = session.claims.auth_time;
  if (typeof at !== 'number' || nowMs - at * 1000 > maxAgeMs) {
    throw new AuthError(401, 'reauth_required', 'this needs a recent login: confirm who you are again');
  }
}
