import {
  createLocalJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { providerError } from './io.js';

/** How long a fetched key set is trusted. */
const JWKS_TTL_MS = 10 * 60_000;
/** An unknown kid refetches the key set (key rotation), but not more often than this. */
const JWKS_REFETCH_MS = 30_000;

export type KeyCache = ReturnType<typeof keyCache>;

/** The issuer's key set, cached for JWKS_TTL_MS; refetched early for an unknown kid at most every JWKS_REFETCH_MS. */
export function keyCache(fetchSet: () => Promise<JSONWebKeySet>, clock: () => number) {
  let cached: { fn: JWTVerifyGetKey; at: number } | undefined;
  return {
    mayRefetch: () => !cached || clock() - cached.at >= JWKS_REFETCH_MS,
    async get(force: boolean): Promise<JWTVerifyGetKey> {
      if (cached && !force && clock() - cached.at < JWKS_TTL_MS) return cached.fn;
      cached = { fn: createLocalJWKSet(await fetchSet()), at: clock() };
      return cached.fn;
    },
  };
}

/**
 * jose's jwtVerify against the issuer's cached key set, fetched again once for an unknown key id (the issuer may
 * have rotated its keys since): the payload, or jose's error (the key set's own fetch errors pass through).
 */
export async function verifyWithKeys(token: string, keys: KeyCache, options: JWTVerifyOptions): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, await keys.get(false), options)).payload;
  } catch (err) {
    if (!(err instanceof joseErrors.JWKSNoMatchingKey) || !keys.mayRefetch()) throw err;
    return (await jwtVerify(token, await keys.get(true), options)).payload;
  }
}

/** What an id_token must satisfy besides its signature. */
export interface IdTokenRules {
  issuer: string;
  /** Our client id: the token's `aud` (and `azp` when several audiences are named). */
  audience: string;
  /** Asymmetric algorithms the issuer signs with. */
  algorithms: string[];
  /** The nonce the login sent, when it sent one. */
  nonce: string | undefined;
  clock: () => number;
  clockToleranceS: number;
}

/**
 * Verifies an OpenID Connect id_token for provider `name`: signature against the cached JWKS (refetched
 * once for an unknown key id), iss, aud/azp, exp (required), nonce and a non-empty sub. Every failure is a 403
 * `invalid_id_token` naming the provider; the key set's own fetch errors pass through.
 */
export async function verifyIdToken(
  name: string,
  idToken: string,
  keys: KeyCache,
  rules: IdTokenRules,
): Promise<JWTPayload> {
  // jose checks exp only when present: requiredClaims refuses an id_token without one (OIDC Core §2 requires it).
  const options = {
    issuer: rules.issuer,
    audience: rules.audience,
    algorithms: rules.algorithms,
    requiredClaims: ['exp'],
    currentDate: new Date(rules.clock()),
    clockTolerance: rules.clockToleranceS,
  };
  const invalid = (why: string, cause?: unknown) =>
    providerError(name, 'invalid_id_token', `invalid id_token (${why})`, cause);
  let payload: JWTPayload;
  try {
    payload = await verifyWithKeys(idToken, keys, options);
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) throw invalid(err.code, err);
    throw err;
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== rules.audience) throw invalid('azp');
  if (rules.nonce !== undefined && payload.nonce !== rules.nonce) throw invalid('nonce mismatch');
  if (typeof payload.sub !== 'string' || !payload.sub) throw invalid('no sub');
  return payload;
}
