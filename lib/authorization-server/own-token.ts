import { createPublicKey } from 'node:crypto';
import { jsonObjectOf } from '../session/jwt.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../session/jws.js';
import type { PublicJwk } from '../session/signing.js';
import type { AccessTokenClaims } from './access-token.js';

/**
 * An access token this server issued, read back at its revocation endpoint: the signature checked against the
 * service's keys, `typ` `at+jwt` and `iss` this issuer; not its expiry (an expired token may still be revoked, to no
 * effect). Undefined for anything else: RFC 7009 answers 200 whatever the token was.
 */
export function ownAccessToken(
  token: string,
  keySet: { keys: PublicJwk[] },
  issuer: string,
): AccessTokenClaims | undefined {
  try {
    const parts = splitJws(token);
    const keys = new Map<string, VerifyKey>(
      keySet.keys.map((jwk) => [
        jwk.kid,
        { alg: jwk.alg, kid: jwk.kid, publicKey: createPublicKey({ key: jwk as never, format: 'jwk' }) },
      ]),
    );
    const key = keyForHeader(parts.headerB64, (kid) => keys.get(kid), 'at+jwt');
    if (!verifyJwsSignature(parts, key)) return undefined;
    const claims = jsonObjectOf(parts.payloadB64, 'malformed token') as Partial<AccessTokenClaims>;
    if (claims.iss !== issuer || typeof claims.sid !== 'string' || typeof claims.client_id !== 'string')
      return undefined;
    return claims as AccessTokenClaims;
  } catch {
    return undefined;
  }
}
