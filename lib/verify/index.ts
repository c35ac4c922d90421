/**
 * `authkoa/verify`: checks authkoa session tokens in another service (an API, a worker, another team's
 * app) with the public keys the app publishes, and nothing else of authkoa: no provider, store or state
 * code loads with it. A Koa middleware, and `.verify(token)` for any other framework.
 *
 *     import { verifier } from 'authkoa/verify';
 *     const auth = verifier({ jwks: 'https://app.example/auth/.well-known/jwks.json', audiences: ['api'] });
 *     app.use(auth);                                   // ctx.state.user, or 401 JSON
 *     const claims = await auth.verify(token);         // elsewhere: the claims, or an AuthError with `code`
 *
 * With `events`, it is also a Shared Signals receiver of the app (docs/verify.md#revocation-from-the-app): a revoked
 * session's tokens are refused from the moment the app's Security Event Token arrives.
 *
 * An API the app's authorization server grants access to takes OAuth access tokens instead, with protectedResource()
 * (protected-resource.ts): `app.use(protectedResource({ resource, authorizationServers: [issuer] }))`.
 */
import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../errors.js';
import { userOf, type Claims } from '../session/claims.js';
import { decodePayload } from '../session/jwt.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../session/jws.js';
import { checkClaims } from '../session/payload.js';
import type { User } from '../user.js';
import { parseDuration, type Duration } from '../util/duration.js';
import {
  checkEvents,
  receiverView,
  startSignals,
  type EventsConfig,
  type ReceiverHandle,
  type VerifierEventsOptions,
  type VerifierLogger,
} from './events.js';
import { jwksOf, keySource, type JwksOption } from './key-set.js';

export {
  protectedResource,
  type ProtectedResource,
  type ProtectedResourceAuth,
  type ProtectedResourceEventsOptions,
  type ProtectedResourceOptions,
} from './protected-resource.js';
export type {
  VerifierEvent,
  VerifierEventsOptions,
  VerifierEventType,
  VerifierListener,
  VerifierLogger,
} from './events.js';

/** Options of verifier(). */
export interface VerifierOptions {
  /** The app's key set: its URL (`<url>/auth/.well-known/jwks.json`), or a JWK set object held locally. */
  jwks: JwksOption;
  /** The app's `issuer` option. Default `authkoa`. */
  issuer?: string;
  /** The audiences accepted (case-insensitive); undefined accepts any. */
  audiences?: string[];
  /** The header carrying the token besides `Authorization: Bearer`. Default `X-JWT`. */
  headerName?: string;
  /** How long fetched keys are used before they are fetched again. Default 10 minutes. */
  maxAge?: Duration;
  /** A token naming an unknown key fetches the set at most this often. Default 30 seconds. */
  cooldown?: Duration;
  /** The deadline of one fetch of the set. Default 5 seconds. */
  timeout?: Duration;
  /** Clock in ms; tests inject one. Default Date.now. */
  clock?: () => number;
  /**
   * Revocations from the app (its `ssf` option): `{ poll: '<url>/auth/ssf/poll', credential }`, or
   * `{ push: '/ssf/events', credential }` with this middleware answering that path. Off by default.
   */
  events?: VerifierEventsOptions;
  /** Where warnings go (the app's events unreachable). Default: `console.error`. */
  logger?: VerifierLogger;
}

/**
 * A refused token is the app's own AuthError, the class `authkoa` exports: `code` one of its error codes
 * (401 `no_token`, `token_invalid`, `token_expired`, `token_not_valid_yet`, `aud_rejected`, `no_user`; 503
 * `keys_unavailable` while no key could be fetched), `status` that code's status, which the middleware
 * answers. Callers branch on `code`, never on the message.
 */
export { AuthError, ERROR_STATUS, type ErrorCode } from '../errors.js';

/** @deprecated The former name of AuthError, the same class: import AuthError instead. */
export const VerifyError = AuthError;
/** @deprecated The former name of AuthError. */
export type VerifyError = AuthError;

/** The claims of a session token that verified: it always has a user, and `aud` (the user's `aud` too). */
export type VerifiedClaims = Claims & { user: User; aud: string };

/** The middleware, with `verify` for other frameworks. */
export interface Verifier extends Middleware, ReceiverHandle {
  /** The claims of a valid session token; rejects with an AuthError. */
  verify(token: string): Promise<VerifiedClaims>;
}

/**
 * Builds a verifier (one per service: it holds the cache of the key set); a bad or unknown option throws a TypeError
 * naming it.
 */
export function verifier(opts: VerifierOptions): Verifier {
  const o = checkOptions(opts);
  const keys = keySource(o.jwks, o);
  const signals = o.events && startSignals(o.events, { issuers: [o.issuer], clock: o.clock, keys }, o.logger);

  async function verify(token: string): Promise<VerifiedClaims> {
    // Another framework may hand over a missing header as it is (undefined, an array of repeated headers).
    if (typeof token !== 'string' || token === '') throw new AuthError('no_token', 'token is not presented');
    const parts = splitJws(token);
    const kid = kidOf(parts.headerB64);
    const known = await keys(kid);
    const key = keyForHeader(parts.headerB64, (k) => (k === kid ? known : undefined));
    if (!verifyJwsSignature(parts, key)) throw new AuthError('token_invalid', 'signature is invalid');
    const claims = checkClaims(decodePayload(parts.payloadB64), o.issuer, (aud) => {
      if (o.audiences && !o.audiences.includes(aud.toLowerCase()))
        throw new AuthError('aud_rejected', `aud "${aud}" not allowed`);
    });
    const now = Math.floor(o.clock() / 1000);
    if (claims.exp !== undefined && now >= claims.exp) throw new AuthError('token_expired', 'token expired');
    if (claims.nbf !== undefined && claims.nbf > now)
      throw new AuthError('token_not_valid_yet', 'token is not valid yet');
    if (!claims.user || claims.handshake) throw new AuthError('no_user', 'not a session token');
    const revoked = signals?.receiver.revoked.refuses(claims);
    if (revoked)
      throw new AuthError(
        'session_revoked',
        revoked === 'session' ? 'the session was revoked' : 'the token was revoked',
      );
    return claims as VerifiedClaims;
  }

  const middleware = async function verifyRequest(ctx: Context, next: Next) {
    if (signals?.push !== undefined && ctx.path === signals.push && ctx.method === 'POST')
      return signals.receiver.push(ctx);
    const token = bearer(ctx.get('authorization')) || ctx.get(o.header);
    try {
      if (!token) throw new AuthError('no_token', 'token is not presented');
      const claims = await verify(token);
      ctx.state.user = userOf(claims);
    } catch (err) {
      // Anything else is a fault of this service, not of the request: Koa answers it with a 500.
      if (!(err instanceof AuthError)) throw err;
      ctx.status = err.status;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ error: err.message, code: err.code });
      return;
    }
    await next();
  } as Verifier;
  middleware.verify = verify;
  const none = () => {
    throw new TypeError('verifier.on(): this verifier has no events option');
  };
  middleware.on = signals ? (type, listener) => signals.on(type, listener) : none;
  middleware.off = signals ? (type, listener) => signals.off(type, listener) : () => {};
  middleware.close = async () => signals?.close();
  Object.defineProperty(middleware, 'events', { value: signals && receiverView(signals) });
  return middleware;
}

/** The options checked, defaults filled in. */
interface CheckedOptions {
  /** The remote set's URL, or the keys of a set given as an object. */
  jwks: string | Map<string, VerifyKey>;
  issuer: string;
  /** Lower case; undefined accepts any audience. */
  audiences: string[] | undefined;
  /** The token header besides Authorization, lower case. */
  header: string;
  maxAgeMs: number;
  cooldownMs: number;
  timeoutMs: number;
  clock: () => number;
  events: EventsConfig | undefined;
  logger: VerifierLogger;
}

const OPTION_NAMES = [
  'jwks',
  'issuer',
  'audiences',
  'headerName',
  'maxAge',
  'cooldown',
  'timeout',
  'clock',
  'events',
  'logger',
];
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkOptions(opts: VerifierOptions): CheckedOptions {
  if (!opts || typeof opts !== 'object' || Array.isArray(opts))
    throw new TypeError('verifier() requires an options object: { jwks, issuer?, audiences? }');
  for (const k of Object.keys(opts))
    if (!OPTION_NAMES.includes(k))
      throw new TypeError(`verifier: unknown option "${k}" (known: ${OPTION_NAMES.join(', ')})`);
  const { issuer, audiences, headerName, clock } = opts;
  if (issuer !== undefined && (typeof issuer !== 'string' || issuer === ''))
    throw new TypeError("verifier: issuer must be a non-empty string (the app's issuer option)");
  if (audiences !== undefined && (!Array.isArray(audiences) || !audiences.every((a) => typeof a === 'string')))
    throw new TypeError('verifier: audiences must be an array of strings');
  if (headerName !== undefined && (typeof headerName !== 'string' || !HEADER_NAME.test(headerName)))
    throw new TypeError(
      `verifier: headerName must be an HTTP header name such as 'X-JWT' (got ${JSON.stringify(headerName)})`,
    );
  if (clock !== undefined && typeof clock !== 'function')
    throw new TypeError('verifier: clock must be a function returning the time in ms');
  if (opts.logger !== undefined && typeof opts.logger?.warn !== 'function')
    throw new TypeError('verifier: logger must have a warn(message) method');
  return {
    jwks: jwksOf(opts.jwks, 'verifier'),
    issuer: issuer ?? 'authkoa',
    audiences: audiences?.map((a) => a.toLowerCase()),
    header: (headerName ?? 'X-JWT').toLowerCase(),
    maxAgeMs: parseDuration(opts.maxAge ?? '10m', 'verifier: maxAge'),
    cooldownMs: parseDuration(opts.cooldown ?? '30s', 'verifier: cooldown'),
    timeoutMs: parseDuration(opts.timeout ?? '5s', 'verifier: timeout'),
    clock: clock ?? Date.now,
    events: checkEvents(opts.events, audiences),
    logger: opts.logger ?? { warn: (m) => console.error(m) },
  };
}

/** The `kid` of a token header (checked fully by keyForHeader). */
function kidOf(headerB64: string): string {
  const kid = decodePayload(headerB64).kid;
  if (typeof kid !== 'string' || kid === '') throw new AuthError('token_invalid', 'token header names no key (kid)');
  return kid;
}

function bearer(h: string): string {
  const m = /^Bearer +(\S+)$/i.exec(h);
  return m ? m[1] : '';
}
