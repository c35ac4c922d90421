import { hash } from 'node:crypto';

/**
 * The authenticated user, as carried in the token's `user` claim and returned by `/auth/user`.
 * JSON field names follow the original library so tokens and front ends stay compatible.
 */
export interface User {
  /** User name from the provider. */
  name: string;
  /** `<provider>_<sha1 hex>` for most providers (see hashId). */
  id: string;
  /** Full link to the proxied avatar, or "". */
  picture: string;
  /** Audience the token was issued for; filled every time a token is read. */
  aud?: string;
  /** Hash of the client IP; the application fills it (ClaimsUpdater). */
  ip?: string;
  /** E-mail; the application fills it, or providers that have one. */
  email?: string;
  /** Application data; use the typed helpers below. */
  attrs?: Record<string, unknown>;
  /** Role used by `rbac(...)`. */
  role?: string;
}

/**
 * `ctx.state.user` is typed wherever Koa is: the `auth`, `admin` and `rbac` middleware put the request's
 * user there before the route runs (`trace` when there is one; `updateUser` replaces it). This file comes
 * with any import of `authkoa`, so the augmentation needs no import of its own.
 */
declare module 'koa' {
  interface DefaultState {
    /** The request's user, once authkoa's route middleware has run; `getUserInfo(ctx)` reads it checked. */
    user?: User;
    /** How the request's user authenticated, beside `user`. */
    auth?: RequestAuth;
  }
}

/**
 * How a request authenticated, as the route middleware put it in `ctx.state.auth` beside `ctx.state.user`:
 * `session` (a token: cookie, X-JWT or `?token=`), `basic` (the Basic header), or a feature's credential by its
 * own name (`token`: a personal access token, with its id and scopes).
 */
export interface RequestAuth {
  readonly method: string;
  /** The credential's own id (a personal token's `pat_…`), when it has one. */
  readonly id?: string;
  /** What the credential may do; absent for a session and basic auth, which may do what their user may. */
  readonly scopes?: readonly string[];
}

/** `ctx.state.auth` of a request authenticated by its token (cookie, X-JWT, `?token=`): one object for all. */
export const SESSION_AUTH: RequestAuth = Object.freeze({ method: 'session' });
/** `ctx.state.auth` of a request authenticated by its Basic header. */
export const BASIC_AUTH: RequestAuth = Object.freeze({ method: 'basic' });

const SHA1_HEX = /^[0-9a-fA-F]{40}$/;

/** Lowercase hex SHA-1 of a string. One-shot `hash()`: no Hash object per call (every login hashes its user id). */
export function sha1(value: string | Buffer): string {
  return hash('sha1', value, 'hex');
}

/**
 * The original's HashID: a value that already is a 40-hex SHA-1 digest passes through unchanged,
 * anything else becomes its lowercase hex SHA-1.
 */
export function hashId(value: string): string {
  return SHA1_HEX.test(value) ? value : sha1(value);
}

/**
 * `<provider>_<sha1(raw)>`: the id every provider except dev and the local server builds. The raw id is
 * always hashed, so no raw value (a login name, an address) can produce another user's id.
 * `keepHashed` restores the original's HashID, which passes a raw id that already looks like a SHA-1
 * through unhashed: a user named `522b…e8` then gets the id of the user whose raw id hashes to it.
 */
export function providerUserId(provider: string, raw: string, opts: { keepHashed?: boolean } = {}): string {
  return `${provider}_${opts.keepHashed ? hashId(raw) : sha1(raw)}`;
}

/**
 * Formats a JSON value the way Go's `%v` does, so ids built from numeric provider fields match the
 * original's: numbers take Go's shortest `%g` form (exponent at 1e6 and above or below 1e-4, two-digit
 * exponent: 1345027 → "1.345027e+06"), null is "", strings pass through.
 */
export function goString(value: unknown): string {
  if (value == null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return goFloat(Number(value));
  return JSON.stringify(value);
}

function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  // toExponential() with no argument yields the shortest round-trip mantissa, as Go's 'g' with precision -1.
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  }
  return String(n); // JS prints plain decimals across the whole [-4, 6) exponent range, as Go does
}

/** Reads a boolean attribute; false when missing or of another type. */
export function boolAttr(user: User, key: string): boolean {
  const v = user.attrs?.[key];
  return typeof v === 'boolean' ? v : false;
}

/** Sets a boolean attribute. */
export function setBoolAttr(user: User, key: string, value: boolean): void {
  (user.attrs ??= {})[key] = value;
}

/** Reads a string attribute; "" when missing or of another type. */
export function strAttr(user: User, key: string): string {
  const v = user.attrs?.[key];
  return typeof v === 'string' ? v : '';
}

/** Sets a string attribute. */
export function setStrAttr(user: User, key: string, value: string): void {
  (user.attrs ??= {})[key] = value;
}

/** Reads a string-list attribute; [] when missing or not a list of strings. */
export function sliceAttr(user: User, key: string): string[] {
  const v = user.attrs?.[key];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...v] : [];
}

/** Sets a string-list attribute. */
export function setSliceAttr(user: User, key: string, value: readonly string[]): void {
  (user.attrs ??= {})[key] = [...value];
}

/** True when the user carries the reserved `admin` attribute (checked by the admin middleware). */
export function isAdmin(user: User): boolean {
  return boolAttr(user, 'admin');
}

/** Sets or clears the reserved `admin` attribute. */
export function setAdmin(user: User, admin: boolean): void {
  setBoolAttr(user, 'admin', admin);
}

/** True when Patreon marked the user a paying subscriber (`is_paid_sub`). */
export function isPaidSub(user: User): boolean {
  return boolAttr(user, 'is_paid_sub');
}
