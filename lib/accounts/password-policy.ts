import { createHash } from 'node:crypto';
import { request } from '../http/client.js';

/**
 * What a new password must be, after NIST 800-63B: long enough, not too long to hash, no composition rules
 * (no "a digit and a symbol"), not the account's own address or name, and, when the application asks, not
 * one that a breach has made public.
 */

/** Why a password is refused; the routes answer each as 400 `weak_password` with this as its reason. */
export type PasswordProblem = 'too_short' | 'too_long' | 'same_as_identity' | 'breached';

/** True when the password is known from a breach; rejects when the check itself could not be made. */
export type BreachCheck = (password: string) => Promise<boolean>;

export interface PasswordPolicy {
  /** At least this many characters (Unicode code points after NFKC); NIST's floor is 8. */
  minLength: number;
  /** At most this many: a longer one is refused before it is hashed. */
  maxLength: number;
  breached?: BreachCheck;
}

/** The longest password accepted (NIST: at least 64 must be; scrypt costs the same for any length). */
export const MAX_PASSWORD_LENGTH = 256;
export const DEFAULT_POLICY: Readonly<PasswordPolicy> = Object.freeze({ minLength: 8, maxLength: MAX_PASSWORD_LENGTH });

/** Who the password is for: it must not be their address, the address's local part, or their name. */
export interface PasswordOwner {
  email?: string;
  name?: string;
}

/** The first rule `password` breaks, or undefined when it may be used. The breach check runs last, only when needed. */
export async function passwordProblem(
  password: string,
  owner: PasswordOwner,
  policy: PasswordPolicy = DEFAULT_POLICY,
): Promise<PasswordProblem | undefined> {
  const normal = password.normalize('NFKC');
  const length = [...normal].length;
  if (length < policy.minLength) return 'too_short';
  if (length > policy.maxLength) return 'too_long';
  if (identityWords(owner).has(normal.toLowerCase())) return 'same_as_identity';
  if (policy.breached && (await policy.breached(normal))) return 'breached';
  return undefined;
}

function identityWords({ email, name }: PasswordOwner): Set<string> {
  const words = new Set<string>();
  for (const w of [email, email?.slice(0, email.lastIndexOf('@')), name])
    if (typeof w === 'string' && w.trim() !== '') words.add(w.normalize('NFKC').trim().toLowerCase());
  return words;
}

/** The Pwned Passwords range API's public address. */
export const HIBP_URL = 'https://api.pwnedpasswords.com';

/** Why the breach check could not say: the range API was slow, down, or answered something else. */
export class BreachCheckError extends Error {
  override readonly name = 'BreachCheckError';
}

export interface HibpOptions {
  /** The range API's base URL (a mirror, or a stand-in in tests); `<url>/range/<5 hex>` is asked. */
  url?: string;
  /** The deadline of one call (default 5 s). */
  timeoutMs?: number;
}

/**
 * The Pwned Passwords check by k-anonymity: only the first five hex digits of the password's SHA-1 leave the
 * process, and the answer (every known suffix under that prefix, padded with decoys of count 0) is searched
 * here for the other thirty-five.
 */
export function hibpCheck(opts: HibpOptions = {}): BreachCheck {
  const base = (opts.url ?? HIBP_URL).replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 5000;
  return async (password) => {
    const sha1 = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const [prefix, suffix] = [sha1.slice(0, 5), sha1.slice(5)];
    let res;
    try {
      // A real answer is about 30 KiB (800–1,000 lines); 512 KiB leaves room for growth, not for a stream.
      res = await request(`${base}/range/${prefix}`, {
        headers: { 'add-padding': 'true' },
        timeoutMs,
        maxBytes: 512 << 10,
      });
    } catch (err) {
      throw new BreachCheckError(`the breached-password check failed: ${(err as Error).message}`, { cause: err });
    }
    if (res.status !== 200) throw new BreachCheckError(`the breached-password check answered ${res.status}`);
    for (const line of res.body.toString('utf8').split('\n')) {
      const [s, count] = line.trim().split(':');
      if (s?.toUpperCase() === suffix && Number(count) > 0) return true;
    }
    return false;
  };
}
