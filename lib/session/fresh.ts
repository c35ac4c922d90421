import { AuthError } from '../errors.js';
import type { User } from '../user.js';
import type { Claims } from './claims.js';

/**
 * The request's full-login session (Authenticator.loginSession, by the rule of full-login.ts): its user
 * and its token's claims. Basic auth and a token that skipped the login never make one.
 */
export interface SessionOf {
  user: User;
  claims: Claims;
}

/**
 * Step-up's rule: throws 401 `reauth_required` unless the session's login (`auth_time`) is at most
 * `maxAgeMs` old. Only a full login reaches it (a token without `auth_time` is none; basic auth, whose
 * password proves one factor only, is none either: 403 `full_login_required` before this).
 */
export function requireFresh(session: SessionOf, maxAgeMs: number, nowMs: number): void {
  const at = session.claims.auth_time;
  if (typeof at !== 'number' || nowMs - at * 1000 > maxAgeMs) {
    throw new AuthError('reauth_required', 'this needs a recent login: confirm who you are again');
  }
}
