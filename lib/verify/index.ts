/**
 * `authkoa/verify`: checks authkoa session tokens in another service (an API, a worker, another team's
 * app) with the public keys the app publishes, and nothing else of authkoa: no provider, store or state
 * code loads with it. A Koa middleware, and `.verify(token)` for any other framework.
 *
 *     import { verifier } from 'authkoa/verify';
 *     const auth = verifier({ jwks: 'https://app.example/auth/.well-known/jwks.json', audiences: ['api'] });
 *     app.use(auth);                                   // ctx.state.user, or 401 JSON
 *     const claims = await auth.verify(token);         // elsewhere: the claims, or a VerifyError with `code`
 */
import type { JsonWebKey } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import { AuthError } from '../errors.js';
import { userOf, type Claims } from '../session/claims.js';
import { decodePayload } from '../session/jwt.js';
import { keyForHeader, splitJws, verifyJwsSignature, type VerifyKey } from '../session/jws.js';
import { checkClaims } from '../session/payload.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { keysOf, RemoteKeySet } from './key-set.js';

/** Options of verifier(). */
export interface VerifierOptions {
  /** The app's key set: its URL (`<url>/auth/.well-known/jwks.json`), or a JWK set object held locally. */
  jwks: string | URL | { keys: JsonWebKey[] };
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
}

/** A refused token: `code` as authkoa's error codes (`no_token`, `token_invalid`, `token_expired`, `aud_rejected`, `no_user`, `keys_unavailable`), `status` the HTTP status the middleware answers. */
export class VerifyError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(status: number, code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VerifyError';
    this.code = code;
    this.status = status;
  }
}

/** The middleware, with `verify` for other frameworks. */
export interface Verifier extends Middleware {
  /** The claims of a valid session token; rejects with a VerifyError. */
  verify(token: string): Promise<Claims>;
}

/** Builds a verifier; a bad option throws a TypeError naming it. */
export function verifier(opts: VerifierOptions): Verifier {
  const o = checkOptions(opts);
  const keys = keySource(o);
  const audiences = o.audiences?.map((a) => a.toLowerCase());
  const header = (o.headerName ?? 'X-JWT').toLowerCase();

  async function verify(token: string): Promise<Claims> {
    try {
      const parts = splitJws(token);
      const kid = kidOf(parts.headerB64);
      const known = await keys(kid);
      const key = keyForHeader(parts.headerB64, (k) => (k === kid ? known : undefined));
      if (!verifyJwsSignature(parts, key)) throw new AuthError(401, 'token_invalid', 'signature is invalid');
      const claims = checkClaims(decodePayload(parts.payloadB64), o.issuer ?? 'authkoa', (aud) => {
        if (audiences && !audiences.includes(aud.toLowerCase())) throw new AuthError(401, 'aud_rejected', `aud "${aud}" not allowed`);
      });
      const now = Math.floor(o.clock() / 1000);
      if (claims.exp !== undefined && now >= claims.exp) throw new AuthError(401, 'token_expired', 'token expired');
      if (claims.nbf !== undefined && claims.nbf > now) throw new AuthError(401, 'token_not_valid_yet', 'token is not valid yet');
      if (!claims.user || claims.handshake) throw new AuthError(401, 'no_user', 'not a session token');
      return claims;
    } catch (err) {
      throw err instanceof VerifyError ? err : err instanceof AuthError ? new VerifyError(err.status, err.code, err.message) : new VerifyError(503, 'keys_unavailable', `the key set could not be fetched: ${(err as Error).message}`, { cause: err });
    }
  }

  const middleware = async function verifyRequest(ctx: Context, next: Next) {
    const token = bearer(ctx.get('authorization')) || ctx.get(header);
    try {
      if (!token) throw new VerifyError(401, 'no_token', 'token is not presented');
      const claims = await verify(token);
      ctx.state.user = userOf(claims);
    } catch (err) {
      const e = err as VerifyError;
      ctx.status = e.status;
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ error: e.message, code: e.code });
      return;
    }
    return next();
  } as Verifier;
  middleware.verify = verify;
  return middleware;
}

/** Where keys come from: a held set, or the remote set with its cache. */
function keySource(o: VerifierOptions & { clock: () => number }): (kid: string) => Promise<VerifyKey | undefined> {
  if (typeof o.jwks === 'object' && !(o.jwks instanceof URL)) {
    const held = keysOf(o.jwks);
    return async (kid) => held.get(kid);
  }
  const remote = new RemoteKeySet({
    url: String(o.jwks),
    maxAgeMs: parseDuration(o.maxAge ?? '10m', 'maxAge'),
    cooldownMs: parseDuration(o.cooldown ?? '30s', 'cooldown'),
    timeoutMs: parseDuration(o.timeout ?? '5s', 'timeout'),
    clock: o.clock,
  });
  return (kid) => remote.key(kid);
}

function checkOptions(opts: VerifierOptions): VerifierOptions & { clock: () => number } {
  if (!opts || typeof opts !== 'object') throw new TypeError('verifier() requires an options object: { jwks, issuer?, audiences? }');
  const { jwks } = opts;
  if (typeof jwks === 'string' || jwks instanceof URL) {
    const url = new URL(String(jwks));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('verifier: jwks must be an http(s) URL or a JWK set');
  } else if (!jwks || typeof jwks !== 'object' || !Array.isArray(jwks.keys)) throw new TypeError('verifier: jwks must be the URL of the key set or a JWK set { keys }');
  if (opts.audiences !== undefined && (!Array.isArray(opts.audiences) || !opts.audiences.every((a) => typeof a === 'string'))) throw new TypeError('verifier: audiences must be an array of strings');
  return { ...opts, clock: opts.clock ?? Date.now };
}

/** The `kid` of a token header (checked fully by keyForHeader). */
function kidOf(headerB64: string): string {
  const kid = decodePayload(headerB64).kid;
  if (typeof kid !== 'string' || kid === '') throw new AuthError(401, 'token_invalid', 'token header names no key (kid)');
  return kid;
}

function bearer(h: string): string {
  const m = /^Bearer +(\S+)$/i.exec(h);
  return m ? m[1]! : '';
}
