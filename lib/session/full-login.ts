import { AuthError } from '../errors.js';
import type { Claims } from './claims.js';

/**
 * The one rule of what may manage a user's factors, sessions, passkeys and credentials, or pass
 * `fresh()`: a full login, the token of a login that passed every factor its user had. Basic auth
 * proves one factor (a password) on every request, so it never is one; nor is a token the app minted
 * itself; personal access tokens will not be either. A credential that is not a full login can still
 * reach the app's own routes (`auth`, `admin`, `rbac`): it only never changes how the user logs in.
 */

/**
 * True for the claims of a token a completed login issued (lib/session/login.ts startSession): it
 * carries the session id (`sid`) and the login time (`auth_time`), which refreshes and step-ups keep.
 * The second step's gate (lib/mfa/gate.ts) starts no session before every factor passed, so such a
 * token passed them. A token minted by the app (`auth.tokens.create`) has neither, unless the app puts
 * them there itself. Tokens of another kind (personal access tokens) are to be told apart here.
 */
export function isFullLogin(claims: Claims): boolean {
  return typeof claims.sid === 'string' && claims.sid !== '' && typeof claims.auth_time === 'number';
}

/** The refusal of a request whose credential is not a full login (basic auth, a token that skipped the login). */
export function fullLoginRequired(what: string): AuthError {
  const message =
    `${what} needs the session of a full login ` + `(cookie, X-JWT or ?token=), not basic auth or a minted token`;
  return new AuthError('full_login_required', message);
}
