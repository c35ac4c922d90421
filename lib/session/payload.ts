import { AuthError } from '../errors.js';
import { canonicalUser, type Claims } from './claims.js';

/**
 * The claims of a verified payload, checked for what every token of this service has: numeric times,
 * an `exp`, the issuer, one audience (`checkAudience` refuses one outside the list), and claims of the
 * right shapes. Throws 401 `token_invalid`. The user is stored in canonical shape (see userOf).
 */
export function checkClaims(p: Record<string, unknown>, issuer: string, checkAudience: (aud: string) => void): Claims {
  const bad = (what: string) => new AuthError('token_invalid', what);
  for (const k of ['exp', 'nbf', 'iat', 'iat_ms', 'auth_time', 'sess_start'] as const) {
    if (p[k] !== undefined && (typeof p[k] !== 'number' || !Number.isFinite(p[k]))) throw bad(`invalid ${k} claim`);
  }
  // Every token this service mints carries exp (see mint); one without it would be valid forever.
  if (p.exp === undefined) throw bad('missing exp claim');
  const aud = p.aud === undefined ? undefined : audienceOf(p.aud);
  if (p.aud !== undefined && aud === undefined) throw bad('aud is not of size 1');
  if (p.iss !== issuer) throw bad('wrong issuer');
  if (p.jti !== undefined && typeof p.jti !== 'string') throw bad('invalid jti claim');
  if (p.sid !== undefined && (typeof p.sid !== 'string' || p.sid === '')) throw bad('invalid sid claim');
  if (p.amr !== undefined && !(Array.isArray(p.amr) && p.amr.every((m) => typeof m === 'string')))
    throw bad('invalid amr claim');
  const user = p.user;
  if (user !== undefined) {
    if (!user || typeof user !== 'object' || Array.isArray(user)) throw bad('invalid user claim');
    const u = user as Record<string, unknown>;
    if (typeof u.id !== 'string' || typeof u.name !== 'string') throw bad('invalid user claim');
    if (u.attrs !== undefined && (typeof u.attrs !== 'object' || u.attrs === null || Array.isArray(u.attrs)))
      throw bad('invalid user claim');
    if (aud === undefined) throw bad('aud is not of size 1');
    if (typeof u.picture !== 'string') u.picture = '';
  }
  if (
    p.handshake !== undefined &&
    (typeof p.handshake !== 'object' || p.handshake === null || Array.isArray(p.handshake))
  )
    throw bad('invalid handshake claim');
  const claims = p as Claims;
  if (aud !== undefined) {
    claims.aud = aud;
    checkAudience(aud);
  }
  // Stored in the shape each request's copy takes, so that copy is a plain clone (see userOf).
  if (claims.user) claims.user = canonicalUser(claims.user, aud ?? '');
  return claims;
}

/** `aud` as one string: a string, or a one-element list of a string (RFC 7519 allows both). */
export function audienceOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') return v[0];
  return undefined;
}
