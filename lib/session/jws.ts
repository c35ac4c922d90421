import { sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { AuthError } from '../errors.js';
import { B64URL, canonicalEnd, jsonObjectOf } from './jwt.js';
import type { SigningAlg } from './signing.js';

/**
 * Compact JWS with a public-key algorithm (EdDSA, ES256, RS256), on node:crypto alone. The key is
 * found by the header's `kid` among keys the verifier already holds, and the header's `alg` must be
 * that key's: a header cannot choose the algorithm (an HS256 token "signed" with a public key, `none`)
 * nor bring its own key (`jwk`, `jku`, `x5u`, `x5c` are refused, as is `crit`).
 */

/** What verifying needs of a key. */
export interface VerifyKey {
  readonly alg: SigningAlg;
  readonly kid: string;
  readonly publicKey: KeyObject;
}

/** The parts of a compact token, checked for shape. */
export interface JwsParts {
  headerB64: string;
  payloadB64: string;
  signature: string;
  signingInput: string;
}

/** The encoded header of tokens signed with a key: `{"alg","kid","typ":"JWT"}` (another `typ` when given). */
export function headerOf(key: Pick<VerifyKey, 'alg' | 'kid'>, typ = 'JWT'): string {
  return Buffer.from(JSON.stringify({ alg: key.alg, kid: key.kid, typ })).toString('base64url');
}

/** Signs `payload` with a private key; `typ` is the header's (`secevent+jwt` for a Security Event Token). */
export function signJws(payload: object, key: VerifyKey & { privateKey: KeyObject }, typ = 'JWT'): string {
  const input = `${headerOf(key, typ)}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${rawSign(key.alg, input, key.privateKey).toString('base64url')}`;
}

/** Splits a compact JWS, every part canonical base64url; 401 `token_invalid` otherwise. */
export function splitJws(token: string): JwsParts {
  const dot1 = token.indexOf('.');
  const dot2 = token.indexOf('.', dot1 + 1);
  if (dot1 <= 0 || dot2 < 0 || token.indexOf('.', dot2 + 1) !== -1 || token.length > 16_384)
    throw invalid('malformed token');
  const parts = {
    headerB64: token.slice(0, dot1),
    payloadB64: token.slice(dot1 + 1, dot2),
    signature: token.slice(dot2 + 1),
    signingInput: token.slice(0, dot2),
  };
  for (const seg of [parts.headerB64, parts.payloadB64, parts.signature]) {
    if (seg === '' || !B64URL.test(seg) || !canonicalEnd(seg)) throw invalid('malformed token');
  }
  return parts;
}

/**
 * The key a token's header names, from `keys` (by `kid`), once the header is shown to choose nothing
 * else: its `alg` must be the key's, and it may carry no key of its own. 401 `token_invalid` otherwise.
 * `typ` is the one type accepted: absent or `JWT` for a session token (the default); a Security Event Token's
 * `secevent+jwt` must be given, so neither kind passes for the other.
 */
export function keyForHeader<K extends VerifyKey>(
  headerB64: string,
  keys: (kid: string) => K | undefined,
  typ?: string,
): K {
  const h = jsonObjectOf(headerB64, 'malformed token header');
  for (const field of ['jwk', 'jku', 'x5u', 'x5c', 'crit'])
    if (h[field] !== undefined) throw invalid(`token header may not carry ${field}`);
  if (typ === undefined ? h.typ !== undefined && h.typ !== 'JWT' : !sameType(h.typ, typ))
    throw invalid('unexpected token type');
  if (typeof h.kid !== 'string' || h.kid === '') throw invalid('token header names no key (kid)');
  const key = keys(h.kid);
  if (!key) throw invalid('token signed with an unknown key');
  if (h.alg !== key.alg) throw invalid(`unexpected signing method: ${String(h.alg)}`);
  return key;
}

/** Checks a token's signature with a key already chosen for it. */
export function verifyJwsSignature(parts: JwsParts, key: VerifyKey): boolean {
  const signature = Buffer.from(parts.signature, 'base64url');
  const data = Buffer.from(parts.signingInput);
  switch (key.alg) {
    case 'EdDSA':
      return cryptoVerify(null, data, key.publicKey, signature);
    case 'ES256':
      return (
        signature.length === 64 &&
        cryptoVerify('sha256', data, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature)
      );
    case 'RS256':
      return cryptoVerify('sha256', data, key.publicKey, signature);
  }
}

function rawSign(alg: SigningAlg, input: string, privateKey: KeyObject): Buffer {
  const data = Buffer.from(input);
  if (alg === 'EdDSA') return cryptoSign(null, data, privateKey);
  if (alg === 'ES256') return cryptoSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return cryptoSign('sha256', data, privateKey);
}

/** RFC 8725 §3.11: a `typ` compares case-insensitively, with or without its `application/` prefix. */
function sameType(given: unknown, typ: string): boolean {
  if (typeof given !== 'string') return false;
  const t = given.toLowerCase();
  return t === typ || t === `application/${typ}`;
}

function invalid(message: string): AuthError {
  return new AuthError('token_invalid', message);
}
