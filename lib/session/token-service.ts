import { noTracing, signatureChecked, type Tracing } from '../telemetry/types.js';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { extensibleCopy } from '../util/extensible-copy.js';
import { copyClaims, wireOrder, type Claims, type RequestToken, type TokenSource } from './claims.js';
import type { KeyObject } from 'node:crypto';
import { HEADER_B64, KeyRing, decodePayload, sign, signatureKey, split, verifySignature } from './jwt.js';
import { keyForHeader, signJws, splitJws, verifyJwsSignature } from './jws.js';
import type { SigningConfig, SigningKey } from './signing.js';
import { audienceOf, checkClaims } from './payload.js';
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
  /** Public-key signing of session tokens (the `signing` option); undefined: HS256 with the secret. */
  signing: SigningConfig | undefined;
}

const VERIFIED_CACHE_MAX = 10_000;
/** Marks a cache entry verified with a signing key (by its kid) rather than a secret. */
const KID = 'kid:';

/**
 * Signs and verifies the service's tokens (HS256, the key prepared once, verified tokens cached) and moves them
 * with requests through the Transport (cookies, request sources, XSRF); `deps.tokenService`, and `auth.tokens`.
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

  /** Where verifications are counted (OpenTelemetry, when the instance has it); nothing by default. */
  readonly #tracing: Tracing;

  constructor(o: TokenConfig & TransportConfig, tracing: Tracing = noTracing) {
    this.#o = o;
    this.#tracing = tracing;
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
    let claims: Claims = extensibleCopy(input); // not `{ ...input }`: fields are added (see extensibleCopy)
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
    if (this.#o.claimsUpdater) claims = extensibleCopy(await this.#o.claimsUpdater(claims));
    // Verification refuses a token without exp: one the ClaimsUpdater dropped it from gets the default back.
    if (!claims.exp) claims.exp = exp;
    claims.aud = claims.aud ?? '';
    if (typeof claims.aud !== 'string') throw new AuthError('aud_not_allowed', 'aud must be a single string');
    this.checkAudience(claims.aud, 'aud_not_allowed');
    // Sessions are signed with the signing key when there is one; handshakes and confirmation links,
    // which never leave the service, always with the secret.
    const signing = this.#o.signing;
    if (signing && !claims.handshake)
      return { token: signJws(wireOrder(claims), signing.current as SigningKey & { privateKey: KeyObject }), claims };
    // The static secret without a call to the async secretFor: one promise and its microtask turn less a login.
    const secret = this.#o.staticSecret ?? (await this.secretFor(claims.aud));
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
    if (this.#o.signing && !token.startsWith(`${HEADER_B64}.`))
      return copyClaims(this.usable(this.verifySigned(token, this.#o.signing)));
    const parts = split(token);
    const secret = await this.verifySecret(parts.payloadB64);
    const hit = this.#verified.get(signatureKey(token));
    let claims: Claims;
    if (hit && hit.token === token && hit.secret === secret) {
      claims = hit.claims;
    } else {
      if (
        !verifySignature(parts, this.#keys.key(secret)) &&
        !this.#o.previousSecrets.some((old) => verifySignature(parts, this.#keys.key(old)))
      ) {
        throw new AuthError('token_invalid', 'signature is invalid');
      }
      claims = this.checkPayload(decodePayload(parts.payloadB64));
      // With a signing key, the secret signs only what never leaves the service: a session token signed
      // with it (or with a public key taken for an HMAC secret) is refused.
      if (this.#o.signing && !claims.handshake)
        throw new AuthError('token_invalid', 'session tokens are signed with the signing key, not the secret');
      this.remember(token, claims, secret);
    }
    return copyClaims(this.usable(claims));
  }

  /** Verifies a token signed with one of the signing keys (by its `kid`, the key's algorithm pinned). */
  private verifySigned(token: string, signing: SigningConfig): Claims {
    const hit = this.#verified.get(signatureKey(token));
    if (hit && hit.token === token && hit.secret.startsWith(KID)) return hit.claims;
    const parts = splitJws(token);
    const key = keyForHeader(parts.headerB64, (kid) => signing.byKid.get(kid));
    if (!verifyJwsSignature(parts, key)) throw new AuthError('token_invalid', 'signature is invalid');
    const claims = this.checkPayload(decodePayload(parts.payloadB64));
    if (claims.handshake) throw new AuthError('token_invalid', 'invalid kind of token');
    this.remember(token, claims, KID + key.kid);
    return claims;
  }

  private remember(token: string, claims: Claims, secret: string): void {
    if (this.#verified.size >= VERIFIED_CACHE_MAX) this.#verified.delete(this.#verified.keys().next().value!);
    this.#verified.set(signatureKey(token), { token, claims, secret });
  }

  /**
   * The hot path, synchronous: the shared (not to be changed) claims of a token this service already
   * verified under its one static secret, or undefined when it has to be verified (or the secret comes from
   * a SecretReader).
   */
  private alreadyVerified(token: string): Claims | undefined {
    const hit = this.#verified.get(signatureKey(token));
    if (!hit || hit.token !== token) return undefined;
    // A secret from a SecretReader may change between calls; a signing key cannot.
    return this.#o.staticSecret !== undefined || hit.secret.startsWith(KID) ? this.usable(hit.claims) : undefined;
  }

  /** Verified claims, once their `nbf` has come. */
  private usable(claims: Claims): Claims {
    // The clock only for a token with an nbf (authkoa mints none): a read cost 75 ns here, on every request.
    const nbf = claims.nbf;
    if (nbf !== undefined && nbf > this.now()) throw new AuthError('token_not_valid_yet', 'token is not valid yet');
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
    const maxAgeS = session ? undefined : Math.floor(this.#o.cookieDurationMs / 1000);
    this.#transport.write(ctx, minted.token, minted.claims.jti ?? '', maxAgeS);
    return minted.claims;
  }

  /** Clears both cookies (logout, rejected tokens). */
  reset(ctx: Context): void {
    this.#transport.clear(ctx);
  }

  /** Clears the cookies of a session ended from elsewhere, leaving a mark that says so (Transport.markEnded). */
  markEnded(ctx: Context): void {
    this.#transport.markEnded(ctx, Math.floor(this.#o.cookieDurationMs / 1000));
  }

  /** True when the request's JWT cookie is that mark (and no other token comes first). */
  endedMarkPresented(ctx: Context): boolean {
    return this.#transport.endedMarkPresented(ctx);
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
  readonly trustNavigation = (ctx: Context): void => this.#transport.trustNavigation(ctx); // see Transport's

  /**
   * The claims of the first token presented that verifies (query, header, cookie: Telegram's `token` query leaves the
   * cookie's), without the expiry and XSRF checks, or undefined: logout ends it by its id.
   */
  async presented(ctx: Context): Promise<Claims | undefined> {
    const t = this.#transport;
    for (const token of [t.fromQuery(ctx), t.fromHeader(ctx), t.fromCookie(ctx)]) {
      const claims = token ? await this.parse(token).catch(() => undefined) : undefined;
      if (claims) return claims;
    }
    return undefined;
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
    if (known) {
      if (this.#tracing.on) this.#tracing.verified(true, true, source);
      return this.accept(ctx, token, copy ? copyClaims(known) : known, source);
    }
    const parsed = this.#tracing.on ? signatureChecked(this.#tracing, source, this.parse(token)) : this.parse(token);
    return parsed.then((claims) => this.accept(ctx, token, claims, source));
  }

  /** The checks that depend on where a verified token came from: expiry for query and header, XSRF for cookies. */
  private accept(ctx: Context, token: string, claims: Claims, source: TokenSource): RequestToken {
    if (source !== 'cookie' && this.isExpired(claims)) throw new AuthError('token_expired', 'token expired');
    if (source === 'cookie' && claims.user) this.#transport.checkXsrf(ctx, claims.jti);
    return { token, claims, source };
  }

  /** An audience outside the list: 403 `aud_not_allowed` when minting (asked for), 401 `aud_rejected` when reading. */
  private checkAudience(aud: string, code: 'aud_not_allowed' | 'aud_rejected'): void {
    if (this.#o.audiences?.includes(aud.toLowerCase()) === false) throw new AuthError(code, `aud "${aud}" not allowed`);
  }

  private async secretFor(aud: string): Promise<string> {
    if (this.#o.staticSecret !== undefined) return this.#o.staticSecret;
    let secret: unknown;
    try {
      secret = await this.#o.secretReader(aud);
    } catch (err) {
      throw new AuthError('secret_unavailable', 'secret is not available', { cause: err });
    }
    if (typeof secret !== 'string' || !secret) throw new AuthError('secret_unavailable', 'secret is not available');
    return secret;
  }

  private async verifySecret(payloadB64: string): Promise<string> {
    if (this.#o.staticSecret !== undefined) return this.#o.staticSecret;
    if (!this.#o.audSecrets) return this.secretFor('ignore');
    const aud = audienceOf(decodePayload(payloadB64).aud);
    if (!aud) throw new AuthError('token_invalid', 'empty aud');
    return this.secretFor(aud);
  }

  /** A verified payload's claims (see checkClaims), its audience one this service allows. */
  private checkPayload(p: Record<string, unknown>): Claims {
    return checkClaims(p, this.#o.issuer, (aud) => this.checkAudience(aud, 'aud_rejected'));
  }
}
