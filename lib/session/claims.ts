import { randomUUID } from 'node:crypto';
import type { User } from '../user.js';
import { omit } from '../util/omit.js';

/**
 * What a token says: the claim types, their order on the wire (the original's, so its users can read
 * authkoa's tokens), and the copies handed out of the verified-token cache.
 */

/** In-flight login data kept in a signed token instead of server memory. */
export interface Handshake {
  state?: string;
  from?: string;
  id?: string;
  [extra: string]: unknown;
}

/**
 * The token payload. Field names, and their order on the wire (WIRE_ORDER below), are the original
 * library's, so its users can still read the tokens; `aud` is one plain string.
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
  /**
   * How the user proved who they are (RFC 8176 values: `pwd`, `otp`, `hwk`, `mfa`; authkoa's `fed` and
   * `email`): set at login, extended by a second factor or a step-up, kept across refreshes.
   */
  amr?: string[];
  /**
   * When the session began (Unix seconds), once a step-up has moved `auth_time` on: `maxSessionAge`
   * counts from it, so re-confirming who you are does not extend a session's life.
   */
  sess_start?: number;
  /**
   * The session this token belongs to: one id per login, kept across refreshes and step-ups, so one
   * device's session can be listed and ended (`/auth/sessions`) while the others go on.
   */
  sid?: string;
  /** When this token was issued, in Unix milliseconds (`iat` is whole seconds); read by revocation checks. */
  iat_ms?: number;
  [extra: string]: unknown;
}

export type TokenSource = 'query' | 'header' | 'cookie';

/** A token read from a request. */
export interface RequestToken {
  token: string;
  claims: Claims;
  source: TokenSource;
}

const WIRE_ORDER = [
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'user',
  'sess_only',
  'handshake',
  'no-ava',
  'auth_provider',
] as const;
const WIRE_KEYS: ReadonlySet<string> = new Set(WIRE_ORDER);

/** 40 lowercase hex characters of crypto randomness: jti, OAuth2 state, login tokens. */
export function randomId(): string {
  // randomBytes(20) took 3 µs a call here (a call into OpenSSL each time), twice per login; randomUUID draws
  // from node's batch of random bytes in 0.3 µs. A UUID v4 carries 122 random bits (its version and variant
  // digits are fixed) and its first 8 digits are all random: one whole and 8 of another make 154 bits.
  const a = randomUUID();
  const b = randomUUID();
  return a.slice(0, 8) + a.slice(9, 13) + a.slice(14, 18) + a.slice(19, 23) + a.slice(24) + b.slice(0, 8);
}

/** Claims in wire order, empty values left out, `user.aud` dropped (it is filled from the claim on read). */
export function wireOrder(claims: Claims): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of WIRE_ORDER) {
    const v = claims[k];
    if (v === undefined || v === null || (v === '' && k !== 'aud') || v === false) continue;
    out[k] = k === 'user' ? withoutAud(v as User) : v;
  }
  // The other claims after them, in their own order (a Set, not a scan of WIRE_ORDER per claim: this runs at
  // every login and refresh).
  for (const k in claims) {
    const v = claims[k];
    if (!(k in out) && v !== undefined && !WIRE_KEYS.has(k)) out[k] = v;
  }
  return out;
}

/**
 * The user of verified claims in the shape every copy of it has: one literal in the original's field
 * order, `aud` filled in, then any fields other systems put in the user. The token service stores the
 * users of the tokens it verifies in this shape, once per token; a request's copy is then a clone of it
 * (see userOf), which V8 makes in one step. Walking the fields with `for…in` on every request took 37 ns
 * in a hot loop where the clone takes 26, and about 0.15 µs of the cookie path inside a loaded server.
 */
export function canonicalUser(user: User, aud: string): User {
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
    if (k === '__proto__')
      Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out as T;
}

// `user.aud` is filled from the claim whenever a token is read; it is not part of the stored user.
function withoutAud(user: User): User {
  if (user.aud === undefined) return user;
  return omit(user, 'aud');
}

/** A private copy of verified claims; `user` gets `aud` (see userOf). */
export function copyClaims(c: Claims): Claims {
  const copy: Claims = { ...c };
  if (c.user) copy.user = userOf(c);
  if (c.handshake) copy.handshake = { ...c.handshake };
  return copy;
}

/** The user of verified claims, as a private copy with `aud` filled in. */
export function userOf(claims: Claims): User | undefined {
  const user = claims.user;
  if (!user) return undefined;
  const aud = claims.aud ?? '';
  // Claims the token service verified hold their user in canonical shape, `aud` included: a clone keeps
  // it, and only `attrs`, the one nested value, needs a copy of its own. A user without that `aud` (one
  // a ClaimsUpdater returned, say) is built anew.
  if (user.aud !== aud) return canonicalUser(user, aud);
  const copy = { ...user };
  if (copy.attrs !== undefined) copy.attrs = copyJson(copy.attrs);
  return copy;
}
