import { randomBytes } from 'node:crypto';
import type { JwtSigner } from '../session/signer.js';
import type { Family } from './grant-store.js';

/**
 * The access tokens the server issues: JWTs by RFC 9068, signed with the service's `signing` key, so a resource
 * server checks them with the app's published keys alone (`protectedResource()` in `authkoa/verify`). `typ` is
 * `at+jwt`, which a session token never is: neither passes for the other (RFC 9068 §4; the session's checks refuse
 * it). `sid` is the grant family: a grant revoked, or the session it came from ended, reaches resource servers as a
 * session's end does.
 */

/** The claims of an access token (RFC 9068 §2.2). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  /** The resource the token is for; absent (OpenID scopes only) means `userinfo` alone takes it. */
  aud?: string | string[];
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  sid: string;
  auth_time?: number;
}

/** What issuing a token needs: the signer, the issuer, the lifetime and the clock. */
export interface AccessTokenIssuer {
  signer: JwtSigner;
  issuer: string;
  ttlMs: number;
  clock: () => number;
}

/** Signs an access token for `family` with the scopes and resources given (narrowed ones at a refresh). */
export async function issueAccessToken(
  o: AccessTokenIssuer,
  family: Pick<Family, 'id' | 'userId' | 'clientId' | 'scopes' | 'resources' | 'authTime'>,
): Promise<{ token: string; expiresIn: number; claims: AccessTokenClaims }> {
  const iat = Math.floor(o.clock() / 1000);
  const expiresIn = Math.max(1, Math.floor(o.ttlMs / 1000));
  const claims: AccessTokenClaims = {
    iss: o.issuer,
    sub: family.userId,
    ...(family.resources.length ? { aud: family.resources.length === 1 ? family.resources[0] : family.resources } : {}),
    client_id: family.clientId,
    scope: family.scopes.join(' '),
    iat,
    exp: iat + expiresIn,
    jti: randomBytes(16).toString('base64url'),
    sid: family.id,
    ...(family.authTime !== undefined ? { auth_time: family.authTime } : {}),
  };
  const token = await o.signer.sign({ ...claims }, { typ: 'at+jwt' });
  return { token, expiresIn, claims };
}
