import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The HMAC hashes RFC 6238 allows; authenticator apps only reliably support SHA-1. */
type OtpAlgorithm = 'sha1' | 'sha256' | 'sha512';

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const OTP_ALGORITHMS: readonly string[] = ['sha1', 'sha256', 'sha512'];
/** A window wider than this (5 minutes either way) would make a one-time code a long-lived password. */
const MAX_WINDOW = 10;
const CODE_DIGITS = 6;

/** RFC 4648 base32, upper case, no padding. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff; // at most 4 leftover bits + 8 new ones are ever needed
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(value >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/**
 * RFC 4648 base32 to bytes. Tolerant of what people type or paste from an authenticator app's
 * "enter key manually" screen: lower case, spaces (any white space) and `=` padding. Throws a TypeError
 * naming the first other character (never the rest of the text: it is usually a secret). Bits left
 * over after the last whole byte are dropped, as RFC 4648 decoders do.
 */
export function base32Decode(text: string): Buffer {
  if (typeof text !== 'string') throw new TypeError(`base32Decode: text must be a string (got ${typeof text})`);
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out = Buffer.alloc(Math.floor((clean.length * 5) / 8));
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const char of clean) {
    const digit = BASE32_ALPHABET.indexOf(char);
    if (digit < 0) throw new TypeError(`base32Decode: ${JSON.stringify(char)} is not base32`);
    value = ((value << 5) | digit) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[index++] = (value >>> bits) & 0xff;
    }
  }
  return out;
}

/**
 * RFC 4226 HOTP: HMAC of the 8-byte big-endian counter, dynamic truncation to 31 bits, the last
 * `digits` decimal digits zero-padded. `digits` 6 to 10 (RFC 4226 requires at least 6; a 31-bit
 * number has 10). Throws a TypeError naming the argument on misuse.
 */
export function hotp(
  secret: Uint8Array,
  counter: number,
  digits = CODE_DIGITS,
  algorithm: OtpAlgorithm = 'sha1',
): string {
  if (!(secret instanceof Uint8Array)) throw new TypeError('hotp: secret must be a Uint8Array');
  if (!Number.isSafeInteger(counter) || counter < 0)
    throw new TypeError(`hotp: counter must be a non-negative integer (got ${counter})`);
  if (!Number.isInteger(digits) || digits < 6 || digits > 10)
    throw new TypeError(`hotp: digits must be an integer from 6 to 10 (got ${digits})`);
  if (!OTP_ALGORITHMS.includes(algorithm))
    throw new TypeError(`hotp: algorithm must be 'sha1', 'sha256' or 'sha512' (got ${JSON.stringify(algorithm)})`);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** Seconds per TOTP step: 30 (RFC 6238's default, what every authenticator app uses). */
export const TOTP_STEP_S = 30;

/**
 * The RFC 6238 step of a time in ms: floor(ms / 1000 / 30). Throws a TypeError for a time that is not a finite
 * number ≥ 0.
 */
export function totpStep(timeMs: number): number {
  if (!Number.isFinite(timeMs) || timeMs < 0)
    throw new TypeError(
      `totpStep: timeMs must be a finite number of milliseconds since 1970, not negative (got ${timeMs})`,
    );
  return Math.floor(timeMs / (1000 * TOTP_STEP_S));
}

/** The TOTP code at `timeMs` (RFC 6238; defaults SHA-1, 6 digits, 30 s): HOTP of the time step. */
export function totp(
  secret: Uint8Array,
  timeMs: number,
  opts: { digits?: number; algorithm?: OtpAlgorithm } = {},
): string {
  return hotp(secret, totpStep(timeMs), opts.digits ?? CODE_DIGITS, opts.algorithm ?? 'sha1');
}

/**
 * The step (counter) whose 6-digit SHA-1 code equals `code`, searched from the current step outwards
 * (current, −1, +1, −2, +2, …) within ±window steps, or undefined. `code` must be exactly 6 ASCII
 * digits after removing spaces (anything else → undefined, never a throw: it is what the user typed).
 * Compares in constant time (crypto.timingSafeEqual) and checks every step of the window whatever
 * matched, so the time taken does not tell which step matched. Steps before 1970 are not candidates.
 * The caller must still refuse a step it has already accepted (RFC 6238 §5.2: a code is used once).
 * `window` (0 to 10) is configuration: a TypeError names it when out of range.
 */
export function matchTotp(secret: Uint8Array, code: string, timeMs: number, window: number): number | undefined {
  if (!Number.isInteger(window) || window < 0 || window > MAX_WINDOW)
    throw new TypeError(`matchTotp: window must be an integer from 0 to ${MAX_WINDOW} (got ${window})`);
  const current = totpStep(timeMs);
  if (typeof code !== 'string') return undefined;
  const typed = code.replace(/ /g, '');
  if (!/^[0-9]{6}$/.test(typed)) return undefined;
  const typedBytes = Buffer.from(typed, 'ascii');
  let matched: number | undefined;
  for (const step of stepsOutwards(current, window)) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step), 'ascii'), typedBytes);
    if (equal && matched === undefined) matched = step;
  }
  return matched;
}

/** The steps current, current−1, current+1, … current±window, leaving out those before step 0. */
function stepsOutwards(current: number, window: number): number[] {
  const steps = [current];
  for (let distance = 1; distance <= window; distance++) {
    if (current - distance >= 0) steps.push(current - distance);
    steps.push(current + distance);
  }
  return steps;
}

/** A new TOTP secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32 (32 characters). */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/**
 * The key URI authenticator apps read (Google Authenticator's "Key Uri Format"):
 * otpauth://totp/<Issuer>:<account>?secret=<BASE32>&issuer=<Issuer>&algorithm=SHA1&digits=6&period=30,
 * label parts percent-encoded (encodeURIComponent), `:` between them literal. The secret is written in
 * canonical form (upper case, no spaces or padding) of the bytes base32Decode reads from it, so the app
 * and the server use the same key. The issuer may not contain `:` (the key URI format forbids it and
 * parsers split the label on an encoded one too); the account may, and is encoded.
 */
export function otpauthURL(opts: { issuer: string; account: string; secret: string }): string {
  const { issuer, account, secret } = opts ?? {};
  if (typeof issuer !== 'string' || issuer === '') throw new TypeError('otpauthURL: issuer must be a non-empty string');
  if (issuer.includes(':'))
    throw new TypeError(`otpauthURL: issuer must not contain ':' (got ${JSON.stringify(issuer)})`);
  if (typeof account !== 'string' || account === '')
    throw new TypeError('otpauthURL: account must be a non-empty string');
  if (typeof secret !== 'string') throw new TypeError('otpauthURL: secret must be a base32 string');
  const key = base32Decode(secret);
  if (key.length === 0) throw new TypeError('otpauthURL: secret must not be empty');
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query =
    `secret=${base32Encode(key)}&issuer=${encodeURIComponent(issuer)}` +
    `&algorithm=SHA1&digits=${CODE_DIGITS}&period=${TOTP_STEP_S}`;
  return `otpauth://totp/${label}?${query}`;
}
