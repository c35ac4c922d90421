import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { canonicalUser, copyClaims, wireOrder, type Claims, type RequestToken, type TokenSource } from './claims.js';
import { KeyRing, decodePayload, sign, split, verifySignature } from './jwt.js';
import { Transport, type TransportConfig } from './transport.js';

/** The options the token service reads to mint and verify (its Transport reads the TransportConfig). */
export interface TokenConfig {
  /** The secret for an audience; a reader of `staticSecret` when no SecretReader was given. */
  secretReader: (aud: string) => string | Promise<string>;
  /** The `secret` option; undefined when a SecretReader decides. */
  staticSecret: string | undefined;
  previousSecrets: string[];
  audSecrets: boolean;
  issuer: string;
  tokenDurationMs: number;
  /** The Max-Age of the cookies `set()` writes. */
  cookieDurationMs: number;
  /** Lower case; undefined when any audience is allowed. */
  audiences: string[] | undefined;
  claimsUpdater: ((claims: Claims) => Claims | Promise<Claims>) | undefined;
  disableIAT: boolean;
  clock: () => number;
}

const VERIFIED_CACHE_MAX = 10_000;

/**
 * Signs and verifies the service's tokens (HS256, the key prepared once, verified tokens cached) and
 * moves them with requests through the Transport (cookies, the three request sources, the XSRF check).
 * Exposed as `auth.tokenService` for applications and providers written outside the package.
 */
export class TokenService {
  // ES private fields: a provider written outside the package gets this service, never the secrets in it.
  readonly #o: TokenConfig;
  readonly #keys = new KeyRing();
  // Verified tokens: a repeated token skips the HMAC and the JSON parse. An entry is only reused for the
  // very same token text under the very secret it was verified with, and expiry is checked on every read.
  // Keyed by a number read from the signature's last characters (see signatureKey), not by the token:
  // every request brings a fresh copy of the token, and hashing all of it cost more than the rest of
  // the lookup. Two tokens on one key only evict each other; the full text is compared on every hit.
  readonly #verified = new Map<number, { token: string; claims: Claims; secret: string }>();

  readonly #transport: Transport;

  /** Current time in whole seconds, from the instance's clock (the `clock` option, Date.now by default). */
  readonly now: () => number;

  constructor(o: TokenConfig & TransportConfig) {
    this.#o = o;
    this.#transport = new Transport(o);
    const clock = o.clock;
    this.now = () => Math.floor(clock() / 1000);
  }

  /** Signs claims (filling exp, iss, iat, running the ClaimsUpdater, checking the audience). */
  async create(claims: Claims): Promise<string> {
    return (await this.mint(claims)).token;
  }

  /** Like create, and also returns the final claims. */
  async mint(input: Claims): Promise<{ token: string; claims: Claims }> {
    let claims: Claims = { ...input };
    const nowMs = this.#o.clock();
    const now = Math.floor(nowMs / 1000);
    const exp = now + Math.ceil(this.#o.tokenDurationMs / 1000);
    if (!claims.exp) claims.exp = exp;
    if (!claims.iss) claims.iss = this.#o.issuer;
    if (!this.#o.disableIAT) {
      claims.iat = now;
      // `iat` is whole seconds; a revocation in the same second as this login must not end it (see revocation.ts).
      claims.iat_ms = nowMs;
    }
    if (this.#o.claimsUpdater) claims = { ...(await this.#o.claimsUpdater(claims)) };
    // Verification refuses a token without exp: one the ClaimsUpdater dropped it from gets the default back.
    if (!claims.exp) claims.exp = exp;
    claims.aud = claims.aud ?? '';
    if (typeof claims.aud !== 'string') throw new AuthError(403, 'aud_rejected', 'aud must be a single string');
    this.checkAudience(claims.aud, 403);
    const secret = await this.secretFor(claims.aud);
    return { token: sign(wireOrder(claims), this.#keys.key(secret)), claims };
  }

  /**
   * Verifies a token and returns a private copy of its claims. Expired tokens parse (the caller decides:
   * cookies refresh, headers refuse); a bad signature, another algorithm, a non-canonical encoding, a
   * missing exp, another issuer, a future nbf or an audience outside the list throw AuthError 401.
   */
  async parse(token: string): Promise<Claims> {
    const known = this.alreadyVerified(token);
    if (known) return copyClaims(known);
    const parts = split(token);
    const secret = await this.verifySecret(parts.payloadB64);
    const hit = this.#verified.get(signatureKey(token));
    let claims: Claims;
    if (hit && hit.token === token && hit.secret === secret) {
      claims = hit.claims;
    } else {
      if (!verifySignature(parts, this.#keys.key(secret)) && !this.#o.previousSecrets.some((old) => verifySignature(parts, this.#keys.key(old)))) {
        throw new AuthError(401, 'token_invalid', 'signature is invalid');
      }
      claims = this.checkPayload(decodePayload(parts.payloadB64));
      if (this.#verified.size >= VERIFIED_CACHE_MAX) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(signatureKey(token), { token, claims, secret });
    }
    return copyClaims(this.usable(claims));
  }

  /**
   * The hot path, synchronous: the shared (not to be changed) claims of a token this service already
   * verified under its one static secret, or undefined when it has to be verified (or the secret comes from
   * a SecretReader).
   */
  private alreadyVerified(token: string): Claims | undefined {
    if (this.#o.staticSecret === undefined) return undefined;
    const hit = this.#verified.get(signatureKey(token));
    return hit && hit.token === token ? this.usable(hit.claims) : undefined;
  }

  /** Verified claims, once their `nbf` has come. */
  private usable(claims: Claims): Claims {
    if (claims.nbf !== undefined && claims.nbf > this.now()) throw new AuthError(401, 'token_not_valid_yet', 'token is not valid yet');
    return claims;
  }

  /** True when the claims carry an exp that has passed. */
  isExpired(claims: Claims): boolean {
    return claims.exp !== undefined && this.now() >= claims.exp;
  }

  /**
   * Mints a token and writes the JWT and XSRF cookies (plus the X-JWT response header with
   * sendJWTHeader). Session-only and handshake tokens get cookies without Max-Age.
   */
  async set(ctx: Context, claims: Claims): Promise<Claims> {
    const minted = await this.mint(claims);
    const session = minted.claims.sess_only || minted.claims.handshake;
    this.#transport.write(ctx, minted.token, minted.claims.jti ?? '', session ? undefined : Math.floor(this.#o.cookieDurationMs / 1000));
    return minted.claims;
  }

  /** Clears both cookies (logout, rejected tokens). */
  reset(ctx: Context): void {
    this.#transport.clear(ctx);
  }

  /**
   * Reads the token of a request: query `token`, then the `X-JWT` header, then the JWT cookie; the first
   * present wins. Returns undefined when none is present. Query and header tokens must not be expired;
   * cookie tokens that carry a user must come with an X-XSRF-TOKEN header equal to their jti. The claims
   * are the caller's own copy.
   */
  async get(ctx: Context): Promise<RequestToken | undefined> {
    return this.readFrom(ctx, true);
  }

  /**
   * `get` for authkoa's own middleware, which runs on every protected request: a token already verified
   * (the same session cookie on every request) is read synchronously, without the promise and its
   * microtask turn, and its claims are the service's shared copy, which the caller must not change (it
   * copies what it hands on, `userOf`). Copying every claim on every request only to read three of them
   * showed in the profile. Only a token not yet verified returns a promise.
   * @internal
   */
  peek(ctx: Context): RequestToken | undefined | Promise<RequestToken | undefined> {
    return this.readFrom(ctx, false);
  }

  /**
   * The verified claims of the token this request presents (query, header or cookie), without the
   * expiry and XSRF checks, or undefined when there is none that verifies: logout ends it by its id.
   */
  async presented(ctx: Context): Promise<Claims | undefined> {
    const t = this.#transport;
    const token = t.fromQuery(ctx) || t.fromHeader(ctx) || t.fromCookie(ctx);
    if (!token) return undefined;
    return this.parse(token).catch(() => undefined);
  }

  private readFrom(ctx: Context, copy: boolean): RequestToken | undefined | Promise<RequestToken | undefined> {
    const t = this.#transport;
    let source: TokenSource = 'query';
    let token = t.fromQuery(ctx);
    if (!token) {
      source = 'header';
      token = t.fromHeader(ctx);
    }
    if (!token) {
      source = 'cookie';
      token = t.fromCookie(ctx);
    }
    if (!token) return undefined;
    const known = this.alreadyVerified(token);
    if (known) return this.accept(ctx, token, copy ? copyClaims(known) : known, source);
    return this.parse(token).then((claims) => this.accept(ctx, token, claims, source));
  }

  /** The checks that depend on where a verified token came from: expiry for query and header, XSRF for cookies. */
  private accept(ctx: Context, token: string, claims: Claims, source: TokenSource): RequestToken {
    if (source !== 'cookie' && this.isExpired(claims)) throw new AuthError(401, 'token_expired', 'token expired');
    if (source === 'cookie' && claims.user) this.#transport.checkXsrf(ctx, claims.jti);
    return { token, claims, source };
  }

  /** An audience outside the list is refused: 403 when minting (the caller asked for it), 401 when reading a token. */
  private checkAudience(aud: string, status: 401 | 403): void {
    if (this.#o.audiences && !this.#o.audiences.includes(aud.toLowerCase())) {
      throw new AuthError(status, 'aud_rejected', `aud "${aud}" not allowed`);
    }
  }

  private async secretFor(aud: string): Promise<string> {
    if (this.#o.staticSecret !== undefined) return this.#o.staticSecret;
    let secret: unknown;
    try {
      secret = await this.#o.secretReader(aud);
    } catch (err) {
      throw new AuthError(500, 'secret_unavailable', 'secret is not available', { cause: err });
    }
    if (typeof secret !== 'string' || secret === '') throw new AuthError(500, 'secret_unavailable', 'secret is not available');
    return secret;
  }

  private async verifySecret(payloadB64: string): Promise<string> {
    if (this.#o.staticSecret !== undefined) return this.#o.staticSecret;
    if (!this.#o.audSecrets) return this.secretFor('ignore');
    const aud = audienceOf(decodePayload(payloadB64).aud);
    if (!aud) throw new AuthError(401, 'token_invalid', 'empty aud');
    return this.secretFor(aud);
  }

  private checkPayload(p: Record<string, unknown>): Claims {
    const bad = (what: string) => new AuthError(401, 'token_invalid', what);
    for (const k of ['exp', 'nbf', 'iat', 'iat_ms', 'auth_time', 'sess_start'] as const) {
      if (p[k] !== undefined && (typeof p[k] !== 'number' || !Number.isFinite(p[k]))) throw bad(`invalid ${k} claim`);
    }
    // Every token this service mints carries exp (see mint); one without it would be valid forever.
    if (p.exp === undefined) throw bad('missing exp claim');
    const aud = p.aud === undefined ? undefined : audienceOf(p.aud);
    if (p.aud !== undefined && aud === undefined) throw bad('aud is not of size 1');
    if (p.iss !== this.#o.issuer) throw bad('wrong issuer');
    if (p.jti !== undefined && typeof p.jti !== 'string') throw bad('invalid jti claim');
    if (p.sid !== undefined && (typeof p.sid !== 'string' || p.sid === '')) throw bad('invalid sid claim');
    if (p.amr !== undefined && !(Array.isArray(p.amr) && p.amr.every((m) => typeof m === 'string'))) throw bad('invalid amr claim');
    const user = p.user;
    if (user !== undefined) {
      if (!user || typeof user !== 'object' || Array.isArray(user)) throw bad('invalid user claim');
      const u = user as Record<string, unknown>;
      if (typeof u.id !== 'string' || typeof u.name !== 'string') throw bad('invalid user claim');
      if (u.attrs !== undefined && (typeof u.attrs !== 'object' || u.attrs === null || Array.isArray(u.attrs))) throw bad('invalid user claim');
      if (aud === undefined) throw bad('aud is not of size 1');
      if (typeof u.picture !== 'string') u.picture = '';
    }
    if (p.handshake !== undefined && (typeof p.handshake !== 'object' || p.handshake === null || Array.isArray(p.handshake))) throw bad('invalid handshake claim');
    const claims = p as Claims;
    if (aud !== undefined) {
      claims.aud = aud;
      this.checkAudience(aud, 401);
    }
    // Stored in the shape each request's copy takes, so that copy is a plain clone (see userOf).
    if (claims.user) claims.user = canonicalUser(claims.user, aud ?? '');
    return claims;
  }
}

/** `aud` as one string: a string, or a one-element list of a string (RFC 7519 allows both). */
function audienceOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') return v[0];
  return undefined;
}

/**
 * 30 bits of the token's last five characters, the end of its HMAC: uniformly spread for real tokens, and
 * a small integer keys a Map without hashing a string. Callers compare the whole token on a hit.
 */
function signatureKey(token: string): number {
  let key = 0;
  for (let i = Math.max(0, token.length - 5); i < token.length; i++) key = (key << 6) | (token.charCodeAt(i) & 63);
  return key;
}

