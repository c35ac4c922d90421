import { rateLimited } from '../http/respond.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { CredentialThrottle } from '../state/throttle.js';
import type { User } from '../user.js';
import { isPromise } from '../util/is-promise.js';

/** Decides basic-auth credentials; the returned user is put on the request. */
export type BasicAuthChecker = (user: string, passwd: string) => BasicAuthResult | Promise<BasicAuthResult>;
export interface BasicAuthResult {
  ok: boolean;
  user?: User;
}

/** The options basic auth reads; with neither `adminPasswd` nor `basicAuthChecker` it is off. */
export interface BasicAuthConfig {
  adminPasswd: string | undefined;
  basicAuthChecker: BasicAuthChecker | undefined;
  logger: Logger;
}

/** Reads a `Basic …` Authorization header into the request's user (see basicAuthenticator()). */
export type BasicAuthenticator = (ctx: Context, header: string) => User | undefined | Promise<User | undefined>;

/**
 * Basic auth as the options configure it: a `basicAuthChecker`, or the `adminPasswd` of user `admin`,
 * with failed attempts throttled when `basicThrottle` is given.
 */
export function basicAuthenticator(
  o: BasicAuthConfig,
  basicThrottle: CredentialThrottle | undefined,
): BasicAuthenticator {
  const verdict = o.basicAuthChecker ? checkerVerdict(o.basicAuthChecker) : adminVerdict(o.adminPasswd!);

  /**
   * The user of a `Basic` Authorization header. Wrong credentials are a 401 with a checker; with only
   * the admin password they fall through to the token (undefined). Synchronous without a throttle and
   * with a synchronous checker: an async function and an await per request showed in the bench.
   */
  function basicAuth(ctx: Context, header: string): User | undefined | Promise<User | undefined> {
    const decoded = decodeBasic(header.slice(6).trim());
    const colon = decoded.indexOf(':');
    const name = colon < 0 ? decoded : decoded.slice(0, colon);
    const passwd = colon < 0 ? '' : decoded.slice(colon + 1);
    if (basicThrottle) return throttledBasic(ctx, basicThrottle, name, passwd);
    const user = verdict(name, passwd);
    return isPromise(user) ? user.then((u) => accepted(u, name)) : accepted(user, name);
  }

  /**
   * basicAuth() behind the failed-login throttle: a locked-out name or IP gets 429 without a check; a
   * refusal counts as a failed attempt, a checker that throws does not (the fault is not the caller's).
   */
  async function throttledBasic(
    ctx: Context,
    throttle: CredentialThrottle,
    name: string,
    passwd: string,
  ): Promise<User | undefined> {
    const attempt = await throttle.attempt(name, ctx.ip);
    if (attempt.wait !== undefined) {
      throw rateLimited(ctx, attempt.wait, 'too many failed login attempts, try again later');
    }
    let user: User | null;
    try {
      user = await verdict(name, passwd);
    } catch (err) {
      await attempt.abandoned();
      throw err;
    }
    await (user ? attempt.succeeded() : attempt.failed());
    return accepted(user, name);
  }

  /**
   * What a verdict means for the request: a checker's refusal is a 401, a wrong admin password falls through to the
   * token.
   */
  function accepted(user: User | null, name: string): User | undefined {
    if (user) return user;
    if (o.basicAuthChecker) throw new AuthError('basic_auth_failed', 'credentials are wrong for basic auth');
    o.logger.warn(`basic auth: wrong credentials for user ${JSON.stringify(name.slice(0, 64))}`, {
      provider: 'basic',
      code: 'bad_credentials',
      userName: name.slice(0, 64),
    });
    return undefined;
  }

  return basicAuth;
}

/** The user a name and password stand for, or null when they are wrong. */
type Verdict = (name: string, passwd: string) => User | null | Promise<User | null>;

/** The checker's verdict; a checker that throws is a 401 with its cause. */
function checkerVerdict(checker: BasicAuthChecker): Verdict {
  return (name, passwd) => {
    let result: ReturnType<BasicAuthChecker>;
    try {
      result = checker(name, passwd);
    } catch (err) {
      throw checkerFailed(err);
    }
    return isPromise(result)
      ? result.then(
          (r) => checkedUser(r, name),
          (err) => {
            throw checkerFailed(err);
          },
        )
      : checkedUser(result, name);
  };
}

/** User `admin` with `adminPasswd`. */
function adminVerdict(adminPasswd: string): Verdict {
  const adminDigest = digest(adminPasswd);
  return (name, passwd) => {
    // Both digests have the same length, so the compare takes the same time for any password.
    const ok = timingSafeEqual(digest(passwd), adminDigest) && name === 'admin';
    return ok ? { id: 'admin', name: 'admin', picture: '', attrs: { admin: true } } : null;
  };
}

function checkedUser(result: BasicAuthResult | undefined, name: string): User | null {
  // Exactly true: 'false', 1, {} or a Promise someone forgot to await are not a yes.
  if (result?.ok !== true) return null;
  return result.user ?? { id: name, name, picture: '' };
}

function checkerFailed(err: unknown): AuthError {
  return new AuthError('basic_auth_failed', 'basic auth check failed', { cause: err });
}

/**
 * The `user:password` of a Basic header. `atob` takes a third of the time of a Buffer round trip; it yields
 * bytes as Latin-1, so a credential with non-ASCII bytes (UTF-8) or base64 atob refuses goes the Buffer way.
 */
function decodeBasic(b64: string): string {
  let text: string;
  try {
    text = atob(b64);
  } catch {
    return Buffer.from(b64, 'base64').toString('utf8');
  }
  return /[^\x00-\x7f]/.test(text) ? Buffer.from(b64, 'base64').toString('utf8') : text;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
