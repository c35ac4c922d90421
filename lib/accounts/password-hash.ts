import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes for accounts: scrypt from node:crypto (no native package to build), written as PHC
 * strings (`$scrypt$ln=17,r=8,p=1$<salt>$<hash>`, the salt and hash in unpadded base64) so the parameters
 * travel with each hash: a hash made under older parameters still verifies, and needsRehash() says when
 * to write it again at the next login.
 */

/** scrypt's cost: N = 2^ln (CPU and memory), r the block size, p the parallelism. */
export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

/** OWASP's Password Storage Cheat Sheet: N = 2^17, r = 8 (1024-byte blocks), p = 1; 128 MiB per hash. */
export const OWASP_SCRYPT: Readonly<ScryptParams> = Object.freeze({ ln: 17, r: 8, p: 1 });

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** The bounds accepted for each parameter: beyond them a stored hash is refused, not computed for minutes. */
const LIMITS = { ln: [10, 22], r: [1, 32], p: [1, 16] } as const;

/** The parameters checked: a TypeError naming the one out of bounds (`what` names the option). */
export function checkScryptParams(params: ScryptParams, what = 'scrypt'): ScryptParams {
  for (const k of ['ln', 'r', 'p'] as const) {
    const v = params[k];
    const [min, max] = LIMITS[k];
    if (!Number.isInteger(v) || v < min || v > max)
      throw new TypeError(`${what}.${k} must be an integer from ${min} to ${max} (got ${String(v)})`);
  }
  return { ln: params.ln, r: params.r, p: params.p };
}

/** The PHC string of `password` under `params`, with a fresh random salt. */
export async function hashPassword(password: string, params: ScryptParams = OWASP_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, params, HASH_BYTES);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${b64(salt)}$${b64(hash)}`;
}

/**
 * True when `password` is the one `phc` was made from, compared in constant time. A string that is not a
 * scrypt PHC hash this module could have written is false, never an exception: a damaged record must not
 * answer differently from a wrong password.
 */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const parsed = parsePhc(phc);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(actual, parsed.hash);
}

/** True when `phc` was made under other parameters than `params` (or cannot be read): hash it again. */
export function needsRehash(phc: string, params: ScryptParams = OWASP_SCRYPT): boolean {
  const parsed = parsePhc(phc);
  return !parsed || parsed.params.ln !== params.ln || parsed.params.r !== params.r || parsed.params.p !== params.p;
}

interface Phc {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{4,88})\$([A-Za-z0-9+/]{22,128})$/;

function parsePhc(phc: string): Phc | undefined {
  const m = typeof phc === 'string' ? PHC.exec(phc) : null;
  if (!m) return undefined;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  try {
    checkScryptParams(params);
  } catch {
    return undefined;
  }
  const salt = Buffer.from(m[4], 'base64');
  const hash = Buffer.from(m[5], 'base64');
  return hash.length >= 16 ? { params, salt, hash } : undefined;
}

function derive(password: string, salt: Buffer, params: ScryptParams, length: number): Promise<Buffer> {
  const N = 2 ** params.ln;
  // scrypt needs 128·N·r bytes; Node refuses past `maxmem` (32 MiB by default, a quarter of OWASP's cost).
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 128 * N * params.r + (1 << 20) };
  // NFKC, as NIST 800-63B asks: the same password typed on two keyboards is one password.
  const bytes = Buffer.from(password.normalize('NFKC'), 'utf8');
  return new Promise((resolve, reject) =>
    scrypt(bytes, salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
