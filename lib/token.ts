import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AuthError } from './errors.js';
import { KeyRing, decodePayload, sign, split, verifySignature } from './jwt.js';
import type { ResolvedOptions } from './options.js';
import type { User } from './user.js';
import { safeEqual } from './safe-equal.js';

/** In-flight login data kept in a signed token instead of server memory. */
export interface Handshake {
  state?: string;
  from?: string;
  id?: string;
  [extra: string]: unknown;
}

/**
 * The token payload. Field names and order follow the original library (reference §1.2) so tokens
 * stay readable by its users; `aud` is one plain string.
 */
export interface Claims {
  iss?: string;
  sub?: string;
  aud?: string;
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  user?: User;
  sess_only?: boolean;
  handshake?: Handshake;
  'no-ava'?: boolean;
  auth_provider?: { name: string };
  /** When the session began (Unix seconds); kept across refreshes, read by maxSessionAge. */
  auth_time?: number;
  [extra: string]: unknown;
}

export type TokenSource = 'query' | 'header' | 'cookie';

/** A token read from a request. */
export interface RequestToken {
  token: string;
  claims: Claims;
  source: TokenSource;
}

const WIRE_ORDER = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'user', 'sess_only', 'handshake', 'no-ava', 'auth_provider'] as const;
const VERIFIED_CACHE_MAX = 10_000;

/** 40 lowercase hex characters of crypto randomness: jti, OAuth2 state, login tokens. */
export function randomId(): string {
  return randomBytes(20).toString('hex');
}

/**
 * Creates, verifies and transports tokens: HS256 with the key prepared once, cookies (JWT HttpOnly,
 * XSRF readable by scripts and equal to the jti), the three request sources and the XSRF check.
 * Exposed as `auth.tokenService` for providers written outside the package.
 */
export class TokenService {
  // ES private fields: a provider written outside the package gets this service, never the secrets in it.
  readonly #o: ResolvedOptions;
  readonly #keys = new KeyRing();
  // Verified tokens: a repeated token skips the HMAC and the JSON parse. An entry is only reused for the
  // very same token text under the very secret it was verified with, and expiry is checked on every read.
  // Keyed by a number read from the signature's last characters (see signatureKey), not by the token:
  // every request brings a fresh copy of the token, and hashing all of it cost more than the rest of
  // the lookup. Two tokens on one key only evict each other; the full text is compared on every hit.
  readonly #verified = new Map<number, { token: string; claims: Claims; secret: string }>();

  // Header names as node stores them in `req.headers`: read there directly, not through Koa's `ctx.get`.
  private readonly jwtHeader: string;
  private readonly xsrfHeader: string;
  // The methods whose cookie requests skip the XSRF check; undefined when there are none (the default), so
  // that the usual request does not look its method up at all.
  private readonly xsrfExempt: ReadonlySet<string> | undefined;

  /** Current time in whole seconds, from the instance's clock (the `clock` option, Date.now by default). */
  readonly now: () => number;

  constructor(o: ResolvedOptions) {
    this.#o = o;
    this.jwtHeader = o.jwtHeaderName.toLowerCase();
    this.xsrfHeader = o.xsrfHeaderName.toLowerCase();
    this.xsrfExempt = o.xsrfIgnoreMethods.size > 0 ? o.xsrfIgnoreMethods : undefined;
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
    const now = this.now();
    if (!claims.exp) claims.exp = now + Math.ceil(this.#o.tokenDurationMs / 1000);
    if (!claims.iss) claims.iss = this.#o.issuer;
    if (!this.#o.disableIAT) claims.iat = now;
    if (this.#o.claimsUpdater) claims = { ...(await this.#o.claimsUpdater(claims)) };
    claims.aud = claims.aud ?? '';
    if (typeof claims.aud !== 'string') throw new AuthError(403, 'aud_rejected', 'aud must be a single string');
    this.checkAudience(claims.aud);
    const secret = await this.secretFor(claims.aud);
    return { token: sign(wireOrder(claims), this.#keys.key(secret)), claims };
  }

  /**
   * Verifies a token and returns a private copy of its claims. Expired tokens parse (the caller decides:
   * cookies refresh, headers refuse); a bad signature, another algorithm, another issuer, a future nbf
   * or an audience outside the list throw AuthError 401.
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
    const o = this.#o;
    const maxAge = minted.claims.sess_only || minted.claims.handshake ? undefined : Math.floor(o.cookieDurationMs / 1000);
    setCookie(ctx, o.jwtCookieName, `${o.jwtCookieName}=${minted.token}${this.attributes(maxAge)}; HttpOnly`);
    setCookie(ctx, o.xsrfCookieName, `${o.xsrfCookieName}=${minted.claims.jti ?? ''}${this.attributes(maxAge)}`);
    if (o.sendJWTHeader) ctx.set(o.jwtHeaderName, minted.token);
    return minted.claims;
  }

  /** Clears both cookies (logout, rejected tokens). */
  reset(ctx: Context): void {
    const o = this.#o;
    const clear = `${this.attributes(undefined)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0`;
    setCookie(ctx, o.jwtCookieName, `${o.jwtCookieName}=${clear}`);
    setCookie(ctx, o.xsrfCookieName, `${o.xsrfCookieName}=${clear}`);
  }

  /**
   * Reads the token of a request: query `token`, then the `X-JWT` header, then the JWT cookie; the first
   * present wins. Returns undefined when none is present. Query and header tokens must not be expired;
   * cookie tokens that carry a user must come with an X-XSRF-TOKEN header equal to their jti.
   */
  async get(ctx: Context): Promise<RequestToken | undefined> {
    return this.read(ctx);
  }

  /**
   * `get` without the promise when it is not needed: a token already verified (the same session cookie
   * on every request) is read synchronously, and only a new token returns a promise. The route
   * middleware runs on every request, and each await there costs a trip through the microtask queue.
   */
  read(ctx: Context): RequestToken | undefined | Promise<RequestToken | undefined> {
    return this.readFrom(ctx, true);
  }

  /**
   * `read` for authkoa's own middleware: the claims of an already-verified token are the service's shared
   * copy, which the caller must not change (it copies what it hands on, `userOf`). Copying every claim
   * on every request only to read three of them showed in the profile.
   * @internal
   */
  peek(ctx: Context): RequestToken | undefined | Promise<RequestToken | undefined> {
    return this.readFrom(ctx, false);
  }

  private readFrom(ctx: Context, copy: boolean): RequestToken | undefined | Promise<RequestToken | undefined> {
    const o = this.#o;
    const headers = ctx.req.headers;
    let source: TokenSource = 'query';
    let token = queryParam(ctx, o.jwtQueryName);
    if (!token) {
      source = 'header';
      token = headerValue(headers[this.jwtHeader]);
    }
    if (!token) {
      source = 'cookie';
      token = readCookie(headerValue(headers.cookie), o.jwtCookieName);
    }
    if (!token) return undefined;
    const known = this.alreadyVerified(token);
    if (known) return this.accept(ctx, token, copy ? copyClaims(known) : known, source);
    return this.parse(token).then((claims) => this.accept(ctx, token, claims, source));
  }

  /** The checks that depend on where a verified token came from: expiry for query and header, XSRF for cookies. */
  private accept(ctx: Context, token: string, claims: Claims, source: TokenSource): RequestToken {
    const o = this.#o;
    if (source !== 'cookie' && this.isExpired(claims)) throw new AuthError(401, 'token_expired', 'token expired');
    if (source === 'cookie' && claims.user && !o.disableXSRF && !this.xsrfExempt?.has(ctx.req.method ?? '')) {
      const header = headerValue(ctx.req.headers[this.xsrfHeader]);
      if (!header || !safeEqual(header, claims.jti ?? '')) throw new AuthError(401, 'xsrf_mismatch', 'xsrf mismatch');
    }
    return { token, claims, source };
  }

  private attributes(maxAge: number | undefined): string {
    const o = this.#o;
    let a = '; Path=/';
    if (o.cookieDomain) a += `; Domain=${o.cookieDomain}`;
    if (maxAge !== undefined) a += `; Max-Age=${maxAge}`;
    if (o.secureCookies) a += '; Secure';
    return a + `; SameSite=${o.sameSite}`;
  }

  private checkAudience(aud: string): void {
    if (this.#o.audiences && !this.#o.audiences.includes(aud.toLowerCase())) {
      throw new AuthError(403, 'aud_rejected', `aud "${aud}" not allowed`);
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
    for (const k of ['exp', 'nbf', 'iat', 'auth_time'] as const) {
      if (p[k] !== undefined && (typeof p[k] !== 'number' || !Number.isFinite(p[k]))) throw bad(`invalid ${k} claim`);
    }
    const aud = p.aud === undefined ? undefined : audienceOf(p.aud);
    if (p.aud !== undefined && aud === undefined) throw bad('aud is not of size 1');
    if (p.iss !== this.#o.issuer) throw bad('wrong issuer');
    if (p.jti !== undefined && typeof p.jti !== 'string') throw bad('invalid jti claim');
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
      this.checkAudienceOnRead(aud);
    }
    return claims;
  }

  private checkAudienceOnRead(aud: string): void {
    if (this.#o.audiences && !this.#o.audiences.includes(aud.toLowerCase())) {
      throw new AuthError(401, 'aud_rejected', `aud "${aud}" not allowed`);
    }
  }
}

/** `aud` as one string: a string, or a one-element list of a string (RFC 7519 allows both). */
function audienceOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') return v[0];
  return undefined;
}

function wireOrder(claims: Claims): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of WIRE_ORDER) {
    const v = claims[k];
    if (v === undefined || v === null || v === '' && k !== 'aud' || v === false) continue;
    out[k] = k === 'user' ? withoutAud(v as User) : v;
  }
  for (const [k, v] of Object.entries(claims)) {
    if (!(k in out) && v !== undefined && !(WIRE_ORDER as readonly string[]).includes(k)) out[k] = v;
  }
  return out;
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

/**
 * The user of a read token, built as one literal of a fixed shape, in the original's field order. Spreading
 * the parsed user and then adding `aud` made V8 derive a new hidden class on every request: that one line
 * was the most expensive of a cookie-authenticated request in the profile.
 */
function copyUser(user: User, aud: string): User {
  const copy: User = { name: user.name, id: user.id, picture: user.picture, aud };
  if (user.ip !== undefined) copy.ip = user.ip;
  if (user.email !== undefined) copy.email = user.email;
  if (user.attrs !== undefined) copy.attrs = copyJson(user.attrs);
  if (user.role !== undefined) copy.role = user.role;
  // Fields other systems put in the user survive the copy.
  const from = user as unknown as Record<string, unknown>;
  const to = copy as unknown as Record<string, unknown>;
  for (const k in from) if (!(k in to)) to[k] = from[k];
  return copy;
}

/**
 * A deep copy of a value parsed from JSON (a token's `attrs`). structuredClone took over 2 µs for a
 * one-key object, more than the rest of an authenticated request; this takes a few dozen nanoseconds.
 */
function copyJson<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const value = copyJson((v as Record<string, unknown>)[k]);
    // JSON.parse makes "__proto__" an own key; assigning it would set the copy's prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out as T;
}

// `user.aud` is filled from the claim whenever a token is read; it is not part of the stored user.
function withoutAud(user: User): User {
  if (user.aud === undefined) return user;
  const { aud: _aud, ...rest } = user;
  return rest;
}

/**
 * A copy deep enough that handlers editing the user never touch the verified-token cache, with the
 * claim's `aud` on the user.
 */
/** A private copy of verified claims; `user` gets `aud` (see copyUser). */
export function copyClaims(c: Claims): Claims {
  const copy: Claims = { ...c };
  if (c.user) copy.user = copyUser(c.user, c.aud ?? '');
  if (c.handshake) copy.handshake = { ...c.handshake };
  return copy;
}


/** The user of verified claims, as a private copy with `aud` filled in. */
export function userOf(claims: Claims): User | undefined {
  return claims.user && copyUser(claims.user, claims.aud ?? '');
}

/** One request header as a string: node joins repeated headers, only Set-Cookie comes as a list. */
function headerValue(v: string | string[] | undefined): string {
  return typeof v === 'string' ? v : '';
}

function queryParam(ctx: Context, name: string): string {
  // Most requests carry no query at all: a look at the raw URL spares parsing it.
  if (ctx.req.url === undefined || !ctx.req.url.includes('?') || !ctx.querystring) return '';
  const v = ctx.query[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
}

/** Finds one cookie in a Cookie header without decoding the rest. */
export function readCookie(header: string, name: string): string {
  if (!header) return '';
  // Scans for `name=` at the start of a pair instead of splitting every cookie of the header: this runs
  // on every cookie-authenticated request.
  let at = 0;
  while (at < header.length) {
    while (header.charCodeAt(at) === 32 /* space */) at++;
    const end = header.indexOf(';', at);
    const stop = end < 0 ? header.length : end;
    if (header.startsWith(name, at) && header.charCodeAt(at + name.length) === 61 /* = */) {
      return header.slice(at + name.length + 1, stop).trim();
    }
    at = stop + 1;
  }
  return '';
}

/** Appends a Set-Cookie, replacing an earlier one of the same name written during this request. */
function setCookie(ctx: Context, name: string, value: string): void {
  const prev = ctx.response.get('Set-Cookie') as unknown as string[] | string;
  const list = (Array.isArray(prev) ? prev : prev ? [prev] : []).filter((c) => !c.startsWith(`${name}=`));
  list.push(value);
  ctx.set('Set-Cookie', list);
}
