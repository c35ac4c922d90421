import { AuthError } from '../errors.js';
import { decodePayload } from '../session/jwt.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../session/jws.js';
import type { RequestAuth } from '../user.js';
import type { RevokedSet } from './revoked.js';

/**
 * An OAuth access token checked for one resource (RFC 9068, docs/verify.md#protecting-an-api-with-access-tokens): a JWS
 * whose header's `typ` is `at+jwt` (so an authkoa session token, `JWT`, is none), signed by a key of the authorization
 * server its `iss` names (one of the resource's), for this resource (`aud`), in its time, with the claims RFC 9068
 * requires, and not revoked (its `sid`, the grant's, as a session's for verifier()).
 */

/** Who an access token speaks for: what `ctx.state.auth` holds behind protectedResource(). */
export interface ProtectedResourceAuth extends RequestAuth {
  readonly method: 'oauth';
  /** The user the token was granted by, or the client itself for client credentials. */
  readonly sub: string;
  /** The OAuth client holding the token (`client_id`). */
  readonly clientId: string;
  /** The scopes granted (the `scope` claim, split on spaces). */
  readonly scopes: readonly string[];
}

/** What a check needs: the keys of each authorization server by its issuer, the resource's audiences, the revoked. */
export interface AccessTokenRules {
  /** The key source of each accepted issuer (the `iss` exactly as the server's metadata says it). */
  keysOf: ReadonlyMap<string, (kid: string) => Promise<VerifyKey | undefined>>;
  /** The `aud` values naming this resource. */
  audiences: ReadonlySet<string>;
  clock: () => number;
  revoked: RevokedSet | undefined;
}

const TYP = 'at+jwt';

/** The token's auth; rejects with an AuthError (401 codes; 503 `keys_unavailable` while no key can be had). */
export async function checkAccessToken(token: string, r: AccessTokenRules): Promise<ProtectedResourceAuth> {
  if (typeof token !== 'string' || token === '') throw new AuthError('no_token', 'no access token is presented');
  const parts = splitJws(token);
  const claims = decodePayload(parts.payloadB64);
  // The issuer picks the keys, before any is fetched: a token of a server not listed costs no request.
  const keys = typeof claims.iss === 'string' ? r.keysOf.get(claims.iss) : undefined;
  if (!keys) throw invalid('the token is not from an authorization server of this resource');
  const kid = decodePayload(parts.headerB64).kid;
  if (typeof kid !== 'string' || kid === '') throw invalid('token header names no key (kid)');
  const known = await keys(kid);
  const key = keyForHeader(parts.headerB64, (k) => (k === kid ? known : undefined), TYP);
  if (!verifyJwsSignature(parts, key)) throw invalid('signature is invalid');
  checkTimes(claims, Math.floor(r.clock() / 1000));
  const { sub, client_id: clientId, scope, sid } = claims;
  const bad =
    typeof sub !== 'string' ||
    sub === '' ||
    typeof clientId !== 'string' ||
    clientId === '' ||
    typeof claims.jti !== 'string' ||
    claims.jti === '' ||
    (scope !== undefined && typeof scope !== 'string') ||
    (sid !== undefined && (typeof sid !== 'string' || sid === ''));
  if (bad) throw invalid('not an access token: sub, client_id and jti are required, scope and sid strings');
  if (!forThisResource(claims.aud, r.audiences))
    throw new AuthError('aud_rejected', 'the token is not for this resource');
  // A user's token answers for the user's revocations too; a client's own (sub = client_id) has no user.
  const user = sub === clientId ? undefined : { id: sub };
  const revoked = r.revoked?.refuses({ sid, user, iat: claims.iat as number });
  if (revoked)
    throw new AuthError('session_revoked', revoked === 'session' ? 'the grant was revoked' : 'the token was revoked');
  const scopes = typeof scope === 'string' ? scope.split(' ').filter((s) => s !== '') : [];
  return Object.freeze({ method: 'oauth', sub, clientId, scopes: Object.freeze(scopes) });
}

/** `exp` and `iat` required, numbers; `nbf` when there; no leeway (as verifier()). */
function checkTimes(claims: Record<string, unknown>, now: number): void {
  const { exp, iat, nbf } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw invalid('missing or invalid exp claim');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalid('missing or invalid iat claim');
  if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isFinite(nbf))) throw invalid('invalid nbf claim');
  if (now >= exp) throw new AuthError('token_expired', 'token expired');
  if (nbf !== undefined && nbf > now) throw new AuthError('token_not_valid_yet', 'token is not valid yet');
}

/** RFC 9068 §4: `aud` is the resource, or a list holding it. */
function forThisResource(aud: unknown, audiences: ReadonlySet<string>): boolean {
  if (typeof aud === 'string') return audiences.has(aud);
  return Array.isArray(aud) && aud.some((a) => typeof a === 'string' && audiences.has(a));
}

function invalid(message: string): AuthError {
  return new AuthError('token_invalid', message);
}
