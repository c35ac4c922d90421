import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SignJWT, type JSONWebKeySet } from 'jose';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';
import { finishUser } from './oauth2/mapping.js';
import {
  commonOptions,
  createFlowProvider,
  endpointURL,
  flowIO,
  providerError,
  type Endpoints,
  type FlowSpec,
  type Identified,
  type OAuthToken,
} from './oauth2/flow.js';
import { keyCache, verifyIdToken, type KeyCache } from './oauth2/id-token.js';
import { optionNames } from '../util/options.js';

/**
 * Sign in with Apple on the web, with a Services ID as the OAuth2 client. Apple differs from other
 * OAuth2 providers in three ways this module handles: the client secret is a short-lived ES256 JWT
 * signed with the team's key; the user comes back with a cross-site form POST (see FlowSpec.formPost
 * for how the handshake survives it); and there is no user-info endpoint — the user is the verified
 * id_token's `sub`, with the name sent once, at the first sign-up, in a `user` form field.
 */

/** Options of `{ kind: 'apple' }` (or `{ name: 'apple' }`). */
export interface AppleProviderOptions {
  kind?: 'apple';
  /** Provider name (default `apple`); user ids are `<name>_<sha1(sub)>`. */
  name?: string;
  /** The Services ID (the OAuth client id), e.g. `com.example.web`. */
  clientId: string;
  /** The 10-character Apple Developer team id. */
  teamId: string;
  /** Id of the Sign in with Apple key. */
  keyId: string;
  /** Path of the key's .p8 file (PKCS#8 PEM). */
  privateKeyPath?: string;
  /** The key as PEM text, or a function returning it (called once, when the provider is created). */
  privateKey?: string | Buffer | (() => string | Buffer);
  /** `name` (default) and/or `email`; with `email` the id_token's address becomes the user's email. */
  scopes?: Array<'name' | 'email'>;
  /** Apple's endpoints; change them only to test against a stand-in. */
  endpoint?: { authURL?: string; tokenURL?: string; keysURL?: string };
  /**
   * Where a login without a permitted `from` lands (default `<url>/`): the callback is a POST and always ends in a 303
   * to a GET.
   */
  landingURL?: string;
  /** Send PKCE (default false: Apple does not document it; the id_token nonce binds the login instead). */
  pkce?: boolean;
  /** Deadline for each call to Apple in ms (default 10 000). */
  timeout?: number;
  /** Largest token/JWKS answer accepted in bytes (default 1 MiB). */
  maxResponseBytes?: number;
}

/** Apple's issuer: the id_token's `iss` and the client secret's `aud`. */
export const APPLE_ISSUER = 'https://appleid.apple.com';
const SECRET_TTL_S = 30 * 60;
/** A cached client secret is replaced once less than this is left, so none expires in flight. */
const SECRET_RENEW_S = 5 * 60;
const CLOCK_TOLERANCE_S = 60;

/** An Apple entry's checked options. */
interface AppleConfig {
  name: string;
  clientId: string;
  teamId: string;
  keyId: string;
  /** The team's EC P-256 signing key, loaded at start-up. */
  key: KeyObject;
  scopes: Array<'name' | 'email'>;
  endpoints: Endpoints;
  keysURL: string;
  /** Where a login without a permitted `from` lands. */
  landing: string;
  common: ReturnType<typeof commonOptions>;
}

export const appleProvider: ProviderModule = {
  kind: 'apple',
  options: optionNames<AppleProviderOptions>({
    kind: true,
    name: true,
    clientId: true,
    teamId: true,
    keyId: true,
    privateKeyPath: true,
    privateKey: true,
    scopes: true,
    endpoint: true,
    landingURL: true,
    pkce: true,
    timeout: true,
    maxResponseBytes: true,
  }),
  create(opts, deps: ProviderDeps): Provider {
    const config = parseAppleOptions(opts, deps);
    const { name } = config;
    const io = flowIO({ ...config.common, name, tracing: deps.tracing });
    const keys = keyCache(async () => {
      const set = await io.getJSON(config.keysURL, 'JWKS');
      if (!Array.isArray(set.keys) || !set.keys.length)
        throw providerError(name, 'bad_provider_response', 'JWKS has no keys');
      return set as unknown as JSONWebKeySet;
    }, deps.clock);
    const spec: FlowSpec = {
      ...config.common,
      name,
      kind: 'apple',
      nonce: true,
      formPost: true,
      authParams: { response_mode: 'form_post' },
      clientSecret: clientSecretSigner(config, deps.clock),
      endpoints: () => Promise.resolve(config.endpoints),
      identify: (token, hs, _io, params) => identify(config, deps, keys, token, hs.nonce, params.user),
    };
    // The callback is a POST: it must end in a 303 to a GET, never in a page a reload would post again.
    const flowDeps: ProviderDeps = {
      ...deps,
      completeLogin: (ctx, login) =>
        deps.completeLogin(ctx, { ...login, from: deps.safeRedirect(login.from) ? login.from : config.landing }),
    };
    return createFlowProvider(spec, flowDeps);
  },
};

/** Checks an Apple entry's options and loads its key; TypeErrors name the option. */
function parseAppleOptions(opts: Record<string, unknown>, deps: ProviderDeps): AppleConfig {
  const name = opts.name ?? 'apple';
  if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
  const missing = ['clientId', 'teamId', 'keyId'].filter((k) => typeof opts[k] !== 'string' || !opts[k]);
  if (missing.length) throw new TypeError(`${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`);
  const { clientId, teamId, keyId } = opts as unknown as AppleProviderOptions;
  const key = loadKey(opts as unknown as AppleProviderOptions);
  const scopes = opts.scopes ?? ['name'];
  if (!Array.isArray(scopes) || !scopes.every((s): s is 'name' | 'email' => s === 'name' || s === 'email'))
    throw new TypeError("scopes may only hold 'name' and 'email'");
  const ep = (opts.endpoint ?? {}) as NonNullable<AppleProviderOptions['endpoint']>;
  if (typeof ep !== 'object') throw new TypeError('endpoint must be { authURL, tokenURL, keysURL }');
  const endpoints = {
    authURL: endpointURL(ep.authURL ?? `${APPLE_ISSUER}/auth/authorize`, 'endpoint.authURL'),
    tokenURL: endpointURL(ep.tokenURL ?? `${APPLE_ISSUER}/auth/token`, 'endpoint.tokenURL'),
  };
  const keysURL = endpointURL(ep.keysURL ?? `${APPLE_ISSUER}/auth/keys`, 'endpoint.keysURL');
  const landing = opts.landingURL ?? `${deps.url}/`;
  if (typeof landing !== 'string' || !deps.safeRedirect(landing))
    throw new TypeError("landingURL must be on the application's site or an allowed redirect host");
  const common = commonOptions(
    {
      cid: clientId,
      csecret: '',
      timeout: opts.timeout,
      maxResponseBytes: opts.maxResponseBytes,
      pkce: opts.pkce ?? false,
      scopes,
      authMethod: 'body',
    },
    { scopes: ['name'] },
  );
  return { name, clientId, teamId, keyId, key, scopes, endpoints, keysURL, landing, common };
}

/**
 * Apple's client secret: an ES256 JWT from the team to Apple naming the client, valid SECRET_TTL_S,
 * signed again once less than SECRET_RENEW_S of it is left.
 */
function clientSecretSigner({ clientId, teamId, keyId, key }: AppleConfig, clock: () => number): () => Promise<string> {
  let secret: { jwt: string; exp: number } | undefined;
  return async () => {
    const now = Math.floor(clock() / 1000);
    if (secret && secret.exp - now > SECRET_RENEW_S) return secret.jwt;
    const exp = now + SECRET_TTL_S;
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: keyId })
      .setIssuer(teamId)
      .setSubject(clientId)
      .setAudience(APPLE_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .sign(key);
    secret = { jwt, exp };
    return jwt;
  };
}

/**
 * The user from the verified id_token: its `sub`, the name Apple posts at the first sign-up, the email when asked for
 * and not unverified.
 */
async function identify(
  { name, clientId, scopes }: AppleConfig,
  deps: ProviderDeps,
  keys: KeyCache,
  token: OAuthToken,
  nonce: string | undefined,
  userField: string | undefined,
): Promise<Identified> {
  if (typeof token.id_token !== 'string' || !token.id_token)
    throw providerError(name, 'bad_provider_response', 'token response carries no id_token');
  const rules = {
    issuer: APPLE_ISSUER,
    audience: clientId,
    algorithms: ['RS256', 'ES256'],
    nonce,
    clock: deps.clock,
    clockToleranceS: CLOCK_TOLERANCE_S,
  };
  const claims = await verifyIdToken(name, token.id_token, keys, rules);
  const email =
    scopes.includes('email') &&
    claims.email_verified !== false &&
    claims.email_verified !== 'false' &&
    typeof claims.email === 'string'
      ? claims.email
      : undefined;
  return {
    user: finishUser(
      name,
      { id: claims.sub!, name: nameOf(userField), picture: '', email },
      claims,
      {},
      { userId: deps.userId },
    ),
    // Apple sends the string "true" as often as the boolean.
    emailVerified: email !== undefined && (claims.email_verified === true || claims.email_verified === 'true'),
  };
}

/**
 * Loads the signing key once, at start-up: a missing file, a key that is not PEM, or one that is not
 * EC P-256 fails start-up (auth.ready) naming the option, instead of the first login failing at Apple.
 */
function loadKey(opts: AppleProviderOptions): KeyObject {
  const given = (['privateKeyPath', 'privateKey'] as const).filter((k) => opts[k] !== undefined);
  if (!given.length)
    throw new TypeError(
      'privateKeyPath (the .p8 file) or privateKey (PEM text, or a function returning it) is required',
    );
  if (given.length > 1) throw new TypeError('give privateKeyPath or privateKey, not both');
  const option = given[0];
  let pem: unknown;
  if (option === 'privateKeyPath') {
    const path = opts.privateKeyPath;
    if (typeof path !== 'string' || !path) throw new TypeError('privateKeyPath must be a file path');
    try {
      pem = readFileSync(path);
    } catch (err) {
      throw new TypeError(
        `privateKeyPath: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  } else {
    pem = opts.privateKey;
    if (typeof pem === 'function') {
      try {
        pem = (pem as () => unknown)();
      } catch (err) {
        throw new TypeError(`privateKey: the key loader failed (${(err as Error).message})`);
      }
      if (pem && typeof (pem as Promise<unknown>).then === 'function')
        throw new TypeError('privateKey: the key loader must return the PEM synchronously');
    }
    if (typeof pem !== 'string' && !Buffer.isBuffer(pem))
      throw new TypeError('privateKey must be PEM text, a Buffer, or a function returning one');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem as string | Buffer);
  } catch {
    throw new TypeError(`${option}: not a PEM private key`);
  }
  if (key.asymmetricKeyType !== 'ec')
    throw new TypeError(
      `${option}: not an EC key (got ${key.asymmetricKeyType}); Sign in with Apple keys are EC P-256`,
    );
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve !== 'prime256v1') throw new TypeError(`${option}: EC key on curve ${curve}, not P-256`);
  return key;
}

/** "First Last" from the `user` form field Apple sends at the first sign-up only; undefined otherwise. */
function nameOf(field: string | undefined): string | undefined {
  if (!field) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(field);
  } catch {
    return undefined;
  }
  const n = (data as { name?: Record<string, unknown> } | null)?.name;
  if (!n || typeof n !== 'object') return undefined;
  const part = (v: unknown) => (typeof v === 'string' ? v.replace(/[\u0000-\u001f\u007f]/g, '').trim() : '');
  const full = [part(n.firstName), part(n.lastName)].filter(Boolean).join(' ').slice(0, 128);
  return full || undefined;
}
