import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * What a personal access token looks like: `<prefix>_<30 random base62 characters><6 base62 characters of
 * checksum>`, as GitHub's are. The prefix lets secret scanners recognise a leaked token; the checksum (CRC-32 of
 * what precedes it) lets the service refuse a mistyped or made-up one without reading a store. Only the
 * token's SHA-256 is ever kept: the token has 178 random bits, so a slow hash would add nothing.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Random characters: 62^30 ≈ 2^178. */
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

/** The token prefix when the app sets none. */
export const DEFAULT_PREFIX = 'akp';

/** A prefix: 2 to 10 lower-case letters and digits, starting with a letter (no `_`: it ends the prefix). */
export function checkPrefix(prefix: unknown, option = 'prefix'): string {
  if (typeof prefix !== 'string' || !/^[a-z][a-z0-9]{1,9}$/.test(prefix))
    throw new TypeError(`${option} must be 2 to 10 lower-case letters and digits, starting with a letter`);
  return prefix;
}

/** A new token under `prefix`: shown to its owner once, never stored. */
export function mintToken(prefix: string = DEFAULT_PREFIX): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  const head = `${prefix}_${random}`;
  return head + checksum(head);
}

/**
 * Whether `token` has the shape of one of `prefix`: the prefix, the length, the alphabet and the checksum. A token
 * that passes may still be unknown, revoked or expired: only the store says that.
 */
export function wellFormed(token: unknown, prefix: string = DEFAULT_PREFIX): token is string {
  if (typeof token !== 'string') return false;
  const head = `${prefix}_`;
  if (token.length !== head.length + RANDOM_LENGTH + CHECKSUM_LENGTH || !token.startsWith(head)) return false;
  const body = token.slice(head.length);
  if (!/^[0-9A-Za-z]+$/.test(body)) return false;
  const sum = Buffer.from(token.slice(-CHECKSUM_LENGTH));
  const expected = Buffer.from(checksum(token.slice(0, -CHECKSUM_LENGTH)));
  return timingSafeEqual(sum, expected);
}

/** What a token is kept and looked up as: its SHA-256, base64url. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** CRC-32 (IEEE) of `text` in six base62 digits, zero-padded. */
function checksum(text: string): string {
  let n = crc32(Buffer.from(text, 'utf8'));
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as zlib computes it (node's own `zlib.crc32` is missing before 20.15). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
