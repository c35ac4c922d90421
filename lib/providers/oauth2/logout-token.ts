import { errors as joseErrors, type JWTPayload } from 'jose';
import { verifyWithKeys, type KeyCache } from './id-token.js';

/**
 * The logout token of OpenID Connect Back-Channel Logout 1.0 (§2.4, checked as §2.6 says): a JWT from the
 * issuer, verified like an id_token against its key set, that carries the back-channel event, names a
 * session (`sid`) or a user (`sub`) and never a `nonce` — so that neither an id_token nor any other JWT the
 * issuer signed can pass for one.
 */

/** The `events` member that makes a JWT a logout token. */
export const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token issued longer ago than this (its `iat`) is refused: a provider sends it as the session ends. */
const MAX_AGE_S = 300;

/** What a logout token must satisfy besides its signature. */
export interface LogoutTokenRules {
  issuer: string;
  /** Our client id: it must be among the token's `aud`. */
  audience: string;
  /** The asymmetric algorithms the issuer signs with. */
  algorithms: string[];
  clock: () => number;
  clockToleranceS: number;
}

/** The claims of a good logout token: the session or user it ends, and its single-use id. */
export interface LogoutClaims {
  sub?: string;
  sid?: string;
  jti: string;
  /** Until when (ms) the `jti` must be remembered: past it the token is refused for its age anyway. */
  until: number;
}

/** A logout token that does not pass: its message is the answer's `error_description`. */
export class LogoutTokenError extends Error {}

/**
 * Verifies a logout token: signature, `iss`, `aud`, `iat` (required, at most five minutes old, not in the future
 * beyond the skew), `exp` when present, `jti`, then the claims only a logout token has. Throws a LogoutTokenError
 * when it does not pass; the key set's own fetch errors pass through.
 */
export async function verifyLogoutToken(token: string, keys: KeyCache, rules: LogoutTokenRules): Promise<LogoutClaims> {
  const options = {
    issuer: rules.issuer,
    audience: rules.audience,
    algorithms: rules.algorithms,
    requiredClaims: ['iat', 'jti'],
    maxTokenAge: MAX_AGE_S,
    currentDate: new Date(rules.clock()),
    clockTolerance: rules.clockToleranceS,
  };
  let payload: JWTPayload;
  try {
    payload = await verifyWithKeys(token, keys, options);
  } catch (err) {
    if (!(err instanceof joseErrors.JOSEError)) throw err;
    const claim = err instanceof joseErrors.JWTClaimValidationFailed ? `: ${err.claim}` : '';
    throw new LogoutTokenError(`invalid logout_token (${err.code}${claim})`);
  }
  return logoutClaims(payload, rules);
}

/** The claims only a logout token has (§2.6 steps 4 to 6): the event, no nonce, a sid or a sub. */
function logoutClaims(p: JWTPayload, rules: LogoutTokenRules): LogoutClaims {
  const events = p.events;
  const event = isObject(events) ? events[BACKCHANNEL_EVENT] : undefined;
  if (!isObject(event)) throw new LogoutTokenError('logout_token carries no back-channel logout event');
  if (p.nonce !== undefined) throw new LogoutTokenError('logout_token may not carry a nonce');
  for (const claim of ['sub', 'sid', 'jti'] as const)
    if (p[claim] !== undefined && (typeof p[claim] !== 'string' || p[claim] === ''))
      throw new LogoutTokenError(`logout_token ${claim} must be a non-empty string`);
  const sub = p.sub;
  const sid = p.sid as string | undefined;
  if (sub === undefined && sid === undefined) throw new LogoutTokenError('logout_token names neither sub nor sid');
  const lastS = Math.max(p.exp ?? 0, p.iat! + MAX_AGE_S) + rules.clockToleranceS;
  return { sub, sid, jti: p.jti!, until: lastS * 1000 };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
