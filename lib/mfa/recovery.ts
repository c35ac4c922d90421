import { createHash, randomBytes } from 'node:crypto';

/** How many recovery codes enrolment and regeneration hand out. */
export const RECOVERY_CODE_COUNT = 10;

/** RFC 4648 base32, lower case: no 0, 1, 8 or 9, so a code read off paper has no digit to mistake for a letter. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** 10 random bytes are 80 bits: 16 characters of 5 bits each, no bit left over. */
const CODE_BYTES = 10;
const GROUP = 4;
/** A cap on one call, so a mistaken count cannot ask for millions of codes. */
const MAX_COUNT = 1000;

/**
 * `count` fresh codes shown once to the user: 16 characters of a base32 alphabet (80 bits) in four dash-separated
 * groups of four (`k7qm-2fhz-wpd4-ja6r`), lower case.
 */
export function newRecoveryCodes(count: number = RECOVERY_CODE_COUNT): string[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    throw new TypeError(`newRecoveryCodes() requires count as a whole number from 1 to ${MAX_COUNT}`);
  return Array.from({ length: count }, () => {
    const chars = base32(randomBytes(CODE_BYTES));
    const groups: string[] = [];
    for (let i = 0; i < chars.length; i += GROUP) groups.push(chars.slice(i, i + GROUP));
    return groups.join('-');
  });
}

/**
 * What the store keeps for a code: SHA-256 (hex) of the normalised code. 80 random bits make a plain
 * hash safe (no key, so rotating the secret leaves them working). Anything that normalises to '' hashes
 * to the hash of '', which no stored code has.
 */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}

/**
 * Lower case, without spaces and dashes; '' for a non-string. What a user types back may be upper case,
 * run together, or split differently, and is still the same code.
 */
export function normaliseRecoveryCode(code: unknown): string {
  if (typeof code !== 'string') return '';
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

/** Base32 of `bytes` whose bit count is a multiple of 5 (no padding needed). */
function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let acc = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >>> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}
