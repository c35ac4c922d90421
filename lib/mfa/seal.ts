import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** Seals and opens short secrets (TOTP keys) for the factor store. */
export interface SealKeys {
  /**
   * AES-256-GCM under the current key; `aad` (the user id) is bound in, so a record copied to another user does not
   * open.
   */
  seal(plain: string, aad: string): string;
  /**
   * The plain text, and `stale: true` when a previous key opened it (the caller re-seals under the current key). Throws
   * SealError when no key opens it or it is malformed/tampered.
   */
  open(sealed: string, aad: string): { plain: string; stale: boolean };
}

/**
 * A sealed value that does not open: malformed, tampered with, sealed for another user, or sealed under
 * a secret that is neither the current one nor a listed previous one. The message never carries the value.
 */
export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

/** The format's version tag; a new derivation or cipher gets a new one, so old values stay readable. */
const VERSION = 'v1';
const SALT = 'authkoa';
const INFO = 'authkoa mfa seal v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface SealKey {
  kid: string;
  key: Buffer;
}

/**
 * Keys derived (HKDF-SHA256, salt 'authkoa', info 'authkoa mfa seal v1', 32 bytes) from the current
 * secret and each previous one. Derived rather than used as is, so the AES key is never the service
 * secret that also signs tokens, and a secret of any length gives a 256-bit key. Sealed values read
 * `v1.<kid>.<iv>.<ciphertext+tag>` (base64url parts): the kid (the first 8 bytes of the key's SHA-256)
 * names the key that sealed it, so open() picks that key instead of trying each in turn, and a value
 * under a previous secret is reported stale for re-sealing. Rotation: move the old secret into
 * `previous`; values re-sealed as they are read; drop it once nothing stale is left.
 */
export function sealKeys(current: string, previous: readonly string[] = []): SealKeys {
  checkSecret(current, 'sealKeys() requires the secret as a non-empty string');
  // Checked as unknown (JavaScript callers): narrowing a readonly string[] by isArray would make it any[].
  const given: unknown = previous;
  if (!Array.isArray(given))
    throw new TypeError('sealKeys() requires the previous secrets as an array of non-empty strings');
  for (const p of previous) checkSecret(p, 'sealKeys() requires each previous secret as a non-empty string');
  const now = deriveKey(current);
  // A previous secret equal to the current one has the current kid: it opens as current, never stale.
  const older = new Map<string, Buffer>();
  for (const p of previous) {
    const k = deriveKey(p);
    if (k.kid !== now.kid && !older.has(k.kid)) older.set(k.kid, k.key);
  }
  return {
    seal(plain, aad) {
      if (typeof plain !== 'string') throw new TypeError('seal() requires the plain text as a string');
      checkAad('seal', aad);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', now.key, iv);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return [VERSION, now.kid, iv.toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, aad) {
      checkAad('open', aad);
      const { kid, iv, body } = parse(sealed);
      const stale = kid !== now.kid;
      const key = stale ? older.get(kid) : now.key;
      if (!key) throw new SealError('sealed under a secret that is neither the current one nor a previous one');
      return { plain: decrypt(key, iv, body, aad), stale };
    },
  };
}

function checkSecret(secret: unknown, message: string): void {
  if (typeof secret !== 'string' || secret === '') throw new TypeError(message);
}

function checkAad(call: string, aad: unknown): void {
  if (typeof aad !== 'string') throw new TypeError(`${call}() requires aad (the user id) as a string`);
}

function deriveKey(secret: string): SealKey {
  const key = Buffer.from(hkdfSync('sha256', secret, SALT, INFO, 32));
  return { kid: createHash('sha256').update(key).digest().subarray(0, 8).toString('base64url'), key };
}

/** The parts of a sealed value; SealError unless it is exactly the format seal() writes. */
function parse(sealed: unknown): { kid: string; iv: Buffer; body: Buffer } {
  if (typeof sealed !== 'string') throw new SealError('sealed value is not a string');
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new SealError(`sealed value is not in the ${VERSION} format`);
  const [, kid, ivText, bodyText] = parts as [string, string, string, string];
  const iv = strictBase64url(ivText);
  const body = strictBase64url(bodyText);
  if (!iv || iv.length !== IV_BYTES || !body || body.length < TAG_BYTES)
    throw new SealError('sealed value is malformed');
  return { kid, iv, body };
}

/**
 * Decodes base64url only when the text is exactly what encoding the bytes gives: Buffer.from skips
 * characters it does not know and ignores a last character's spare bits, and a changed character must
 * not decode to the same bytes.
 */
function strictBase64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function decrypt(key: Buffer, iv: Buffer, body: Buffer, aad: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SealError('sealed value does not open: tampered with, or sealed for another user');
  }
}
