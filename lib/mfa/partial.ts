import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { Context } from 'koa';
import { mfaError } from './errors.js';
import type { IdentifiedLogin } from '../session/login.js';
import { decodePayload, sign, split, verifySignature } from '../session/jwt.js';
import { readCookie } from '../session/transport.js';
import { USED_NS, type StateStore } from '../state/types.js';

/** A login whose first factor passed and whose second is pending: what the session is made of once it passes. */
export interface PendingLogin extends Omit<IdentifiedLogin, 'navigation'> {
  /** What the user may answer with: `totp`, `recovery`, `passkey`; empty when they must set one up. */
  factors: string[];
  /** True when the user has no factor and `mfa.required` says they need one: only setup and confirm take it. */
  enroll?: boolean;
}

/** The name of the cookie a pending login is carried in: the session cookie's, with `-MFA`. */
export const partialCookieName = (jwtCookieName: string): string => `${jwtCookieName}-MFA`;

/** A partial token read from its cookie and verified. */
export interface PartialLogin {
  pending: PendingLogin;
  jti: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

/** What the partial tokens are made with. */
export interface PartialConfig {
  secret: string;
  previousSecrets: string[];
  partialMs: number;
  issuer: string;
  /** The cookie: its name, the path it is sent to (the MFA routes) and its attributes. */
  cookieName: string;
  cookiePath: string;
  secure: boolean;
  clock: () => number;
  randomId: () => string;
}

/**
 * The partial session between the two factors: a token signed with its own key (derived from the MFA
 * secret, never the session key), so no other part of authkoa can take it for a session, whatever it
 * is presented as (cookie, X-JWT, `?token=`, a refresh); carried only in its own HttpOnly cookie, sent
 * only to the MFA routes; at most 5 minutes long; spent once, in the state store, when the second step
 * passes, so a copy taken before cannot be used again in any process.
 */
export class PartialLogins {
  readonly #o: PartialConfig;
  readonly #key: KeyObject;
  readonly #previous: KeyObject[];

  constructor(
    o: PartialConfig,
    private readonly state: StateStore,
  ) {
    this.#o = o;
    this.#key = partialKey(o.secret);
    this.#previous = o.previousSecrets.map(partialKey);
  }

  /** Starts the second step: the partial token in its cookie. */
  begin(ctx: Context, pending: PendingLogin): void {
    const now = this.#o.clock();
    const exp = Math.floor((now + this.#o.partialMs) / 1000);
    const token = sign(
      {
        iss: this.#o.issuer,
        typ: 'mfa-partial',
        exp,
        iat: Math.floor(now / 1000),
        jti: this.#o.randomId(),
        mfa: pending,
      },
      this.#key,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.append(
      'Set-Cookie',
      `${this.#o.cookieName}=${token}${this.#attributes()}; Max-Age=${Math.ceil(this.#o.partialMs / 1000)}`,
    );
  }

  /**
   * The request's partial login, or undefined when it has none; 401 `mfa_session_expired`/`mfa_session_invalid` for one
   * that cannot be used.
   */
  read(ctx: Context): PartialLogin | undefined {
    const token = readCookie(ctx.get('cookie'), this.#o.cookieName);
    if (!token) return undefined;
    const invalid = () => mfaError('mfa_session_invalid', 'the login to finish is not valid: log in again');
    let payload: Record<string, unknown>;
    try {
      const parts = split(token);
      if (!verifySignature(parts, this.#key) && !this.#previous.some((k) => verifySignature(parts, k))) throw invalid();
      payload = decodePayload(parts.payloadB64);
    } catch {
      throw invalid();
    }
    const { exp, jti, mfa } = payload;
    if (
      payload.typ !== 'mfa-partial' ||
      payload.iss !== this.#o.issuer ||
      typeof exp !== 'number' ||
      typeof jti !== 'string' ||
      !mfa ||
      typeof mfa !== 'object'
    )
      throw invalid();
    if (exp * 1000 <= this.#o.clock())
      throw mfaError('mfa_session_expired', 'the second step took too long: log in again');
    return { pending: mfa as PendingLogin, jti, exp };
  }

  /**
   * Throws 401 `mfa_session_invalid` when the partial login was already finished (a copy replayed): checked before a
   * code is, so a replay spends no code.
   */
  async unspent(partial: PartialLogin): Promise<void> {
    const used = await this.state.get(USED_NS, `mfa-partial:${partial.jti}`);
    if (used && used.expiresAt > this.#o.clock())
      throw mfaError('mfa_session_invalid', 'this login was already finished: log in again');
  }

  /**
   * Spends a partial login once its second step passed: a second use, here or in another process, is refused. Clears
   * the cookie.
   */
  async spend(ctx: Context, partial: PartialLogin): Promise<void> {
    const first = await this.state.markUsed(`mfa-partial:${partial.jti}`, partial.exp * 1000);
    this.clear(ctx);
    if (!first) throw mfaError('mfa_session_invalid', 'this login was already finished: log in again');
  }

  /** Removes the partial cookie. */
  clear(ctx: Context): void {
    ctx.append(
      'Set-Cookie',
      `${this.#o.cookieName}=${this.#attributes()}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`,
    );
  }

  #attributes(): string {
    return `; Path=${this.#o.cookiePath}; HttpOnly; SameSite=Lax${this.#o.secure ? '; Secure' : ''}`;
  }
}

/**
 * The partial tokens' own HMAC key: HKDF of the MFA secret, so a session key never verifies one (nor one a session).
 */
function partialKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'authkoa', 'authkoa mfa partial token v1', 32)));
}
