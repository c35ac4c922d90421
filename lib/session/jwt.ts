import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { AuthError } from '../errors.js';

/**
 * HS256 compact JWS, on node:crypto alone. The algorithm is pinned: a token whose header says
 * anything but HS256 (none, RS256, HS512 …) is refused before any key is touched, and header
 * fields such as kid, jku or x5u are never consulted, so they cannot steer verification.
 */

const HEADER_JSON = '{"alg":"HS256","typ":"JWT"}';
/** The header every HS256 token authkoa mints has, encoded. */
export const HEADER_B64 = Buffer.from(HEADER_JSON).toString('base64url');
export const B64URL = /^[A-Za-z0-9_-]*$/;
const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** The 6-bit value of each base64url character by char code (the alphabet is checked by B64URL first). */
const B64URL_VALUE = new Uint8Array(128);
for (let i = 0; i < B64URL_ALPHABET.length; i++) B64URL_VALUE[B64URL_ALPHABET.charCodeAt(i)] = i;

/** Secrets turned into KeyObjects once; parsing a secret per call is what makes jsonwebtoken slow. */
export class KeyRing {
  private readonly keys = new Map<string, KeyObject>();

  key(secret: string): KeyObject {
    let k = this.keys.get(secret);
    if (!k) {
      if (this.keys.size >= 64) this.keys.delete(this.keys.keys().next().value!);
      k = createSecretKey(Buffer.from(secret, 'utf8'));
      this.keys.set(secret, k);
    }
    return k;
  }
}

/** Signs `payload` (already in wire order) with HS256. */
export function sign(payload: object, key: KeyObject): string {
  const body = `${HEADER_B64}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The three parts of a compact token, checked for shape only. */
export interface SplitToken {
  signingInput: string;
  payloadB64: string;
  signature: string;
}

/**
 * Splits a compact JWS and checks the header pins HS256 and every part is canonical base64url (see
 * canonicalEnd); throws AuthError 401 `token_invalid` otherwise.
 */
export function split(token: string): SplitToken {
  const dot1 = token.indexOf('.');
  const dot2 = token.indexOf('.', dot1 + 1);
  if (dot1 <= 0 || dot2 < 0 || token.indexOf('.', dot2 + 1) !== -1 || token.length > 16_384)
    throw invalid('malformed token');
  const headerB64 = token.slice(0, dot1);
  const payloadB64 = token.slice(dot1 + 1, dot2);
  const signature = token.slice(dot2 + 1);
  if (!B64URL.test(payloadB64) || !B64URL.test(signature) || signature.length === 0) throw invalid('malformed token');
  if (!canonicalEnd(payloadB64) || !canonicalEnd(signature)) throw invalid('malformed token');
  if (headerB64 !== HEADER_B64) checkHeader(headerB64);
  return { signingInput: token.slice(0, dot2), payloadB64, signature };
}

/**
 * True when a segment already checked against B64URL is the one canonical base64url text of its bytes,
 * i.e. `Buffer.from(seg, 'base64url').toString('base64url') === seg`. Node's decoder ignores the unused low
 * bits of the last character (and a lone trailing character), so without this one token would have
 * several texts, each passing the HMAC, and a denylist or cache keyed by token text could be sidestepped.
 * Without padding the last character of a 4-character group is whole; after 2 characters (one byte) it
 * carries 2 bits and its low 4 must be zero, after 3 (two bytes) 4 bits and its low 2 must be zero; a
 * remainder of 1 encodes nothing. Testing that one character costs nothing next to a decode and
 * re-encode, and this runs on every verification the token cache misses.
 */
export function canonicalEnd(seg: string): boolean {
  switch (seg.length & 3) {
    case 0:
      return true;
    case 2:
      return (B64URL_VALUE[seg.charCodeAt(seg.length - 1)] & 0b1111) === 0;
    case 3:
      return (B64URL_VALUE[seg.charCodeAt(seg.length - 1)] & 0b11) === 0;
    default:
      return false;
  }
}

function checkHeader(headerB64: string): void {
  if (!B64URL.test(headerB64) || !canonicalEnd(headerB64)) throw invalid('malformed token');
  const h = jsonObjectOf(headerB64, 'malformed token header');
  if (h.alg !== 'HS256') throw invalid(`unexpected signing method: ${String(h.alg)}`);
  if (h.typ !== undefined && h.typ !== 'JWT') throw invalid('unexpected token type');
  // RFC 7515 §4.1.11: an extension we do not understand must be refused.
  if (h.crit !== undefined) throw invalid('unsupported critical header');
}

/** Checks the HMAC in constant time. */
export function verifySignature(parts: SplitToken, key: KeyObject): boolean {
  const expected = createHmac('sha256', key).update(parts.signingInput).digest();
  const given = Buffer.from(parts.signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Decodes the payload without verifying it (only to pick an audience's secret). */
export function decodePayload(payloadB64: string): Record<string, unknown> {
  return jsonObjectOf(payloadB64, 'malformed token payload');
}

/** A base64url segment that must hold a JSON object; anything else is a 401 `token_invalid` saying `malformed`. */
export function jsonObjectOf(b64: string, malformed: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(b64, 'base64url').toString('utf8'));
  } catch {
    throw invalid(malformed);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(malformed);
  return value as Record<string, unknown>;
}

function invalid(message: string): AuthError {
  return new AuthError('token_invalid', message);
}

/**
 * 30 bits of the token's last five characters, the end of its HMAC: uniformly spread for real tokens, and
 * a small integer keys a Map without hashing a string. Callers compare the whole token on a hit.
 */
export function signatureKey(token: string): number {
  let key = 0;
  for (let i = Math.max(0, token.length - 5); i < token.length; i++) key = (key << 6) | (token.charCodeAt(i) & 63);
  return key;
}
