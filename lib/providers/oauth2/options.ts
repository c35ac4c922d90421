import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../http/client.js';
import type { User } from '../../user.js';

/** The token endpoint's answer (access_token, id_token, expires_in, …). */
export type OAuthToken = Record<string, unknown> & { access_token: string };

/** Options every OAuth2-based kind (social, oauth2, oidc, dev) accepts; validated by commonOptions(). */
export interface CommonOAuth2Options {
  /** Client id at the provider. */
  cid?: string;
  /** Client secret at the provider. */
  csecret?: string;
  /** Custom providers may give both as `client: { cid, csecret }`. */
  client?: { cid?: string; csecret?: string };
  /** Replaces the provider's scopes. */
  scopes?: string[];
  /** Deadline for each outbound call in ms (default 10 000). */
  timeout?: number;
  /** Largest token/user-info/discovery/JWKS body accepted in bytes (default 1 MiB). */
  maxResponseBytes?: number;
  /** Send PKCE (default true). */
  pkce?: boolean;
  /** Client authentication at the token endpoint. */
  authMethod?: 'header' | 'body';
  /** Copies user-info fields into `attrs` as strings: `{ providerJsonKey: attrName }`. */
  userAttributes?: Record<string, string>;
  /** Called after the user is identified, with the provider's token. */
  bearerTokenHook?: (provider: string, user: User, token: OAuthToken) => void | Promise<void>;
}

/** The names of CommonOAuth2Options, spread into each OAuth2 kind's option list. */
export const COMMON_OAUTH2_OPTIONS = {
  cid: true,
  csecret: true,
  client: true,
  scopes: true,
  timeout: true,
  maxResponseBytes: true,
  pkce: true,
  authMethod: true,
  userAttributes: true,
  bearerTokenHook: true,
} as const satisfies Record<keyof CommonOAuth2Options, true>;

/** Validates the options every OAuth2 kind shares; TypeErrors name the option (the registry adds the entry). */
export function commonOptions(
  opts: Record<string, unknown>,
  defaults: { scopes: readonly string[]; authMethod?: 'header' | 'body'; pkce?: boolean },
) {
  const client = (opts.client ?? {}) as Record<string, unknown>;
  if (typeof client !== 'object' || client === null) throw new TypeError('client must be { cid, csecret }');
  const cid = opts.cid ?? client.cid;
  const csecret = opts.csecret ?? client.csecret ?? '';
  if (typeof cid !== 'string' || !cid) throw new TypeError('cid (the client id) is required');
  if (typeof csecret !== 'string') throw new TypeError('csecret must be a string');
  if (/[^\x20-\x7e]/.test(cid) || /[^\x20-\x7e]/.test(csecret))
    throw new TypeError('cid and csecret must be printable ASCII');
  const scopes = opts.scopes ?? defaults.scopes;
  if (!Array.isArray(scopes) || !scopes.every((s): s is string => typeof s === 'string' && /^[\x21-\x7e]+$/.test(s)))
    throw new TypeError('scopes must be an array of scope strings');
  const timeoutMs = opts.timeout ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError('timeout must be a positive number of ms');
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes <= 0)
    throw new TypeError('maxResponseBytes must be a positive integer');
  const pkce = opts.pkce ?? defaults.pkce ?? true;
  if (typeof pkce !== 'boolean') throw new TypeError('pkce must be a boolean');
  const method = opts.authMethod ?? defaults.authMethod ?? 'header';
  if (method !== 'header' && method !== 'body') throw new TypeError("authMethod must be 'header' or 'body'");
  // Typed, so the literal does not widen to string in the object returned.
  const authMethod: 'header' | 'body' = method;
  const attrs = opts.userAttributes ?? {};
  if (typeof attrs !== 'object' || attrs === null || !Object.values(attrs).every((v) => typeof v === 'string' && v)) {
    throw new TypeError('userAttributes must map provider fields to attribute names');
  }
  const hook = opts.bearerTokenHook;
  if (hook !== undefined && typeof hook !== 'function') throw new TypeError('bearerTokenHook must be a function');
  return {
    cid,
    csecret,
    scopes: [...scopes],
    timeoutMs,
    maxBytes,
    pkce,
    authMethod,
    userAttributes: attrs as Record<string, string>,
    bearerTokenHook: hook as CommonOAuth2Options['bearerTokenHook'],
  };
}

/** Checks an endpoint URL option: absolute http(s). */
export function endpointURL(value: unknown, option: string): string {
  if (typeof value !== 'string' || !value) throw new TypeError(`${option} is required`);
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`${option} must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`${option} must be an absolute http(s) URL (got ${JSON.stringify(value)})`);
  return u.href;
}

/**
 * The `endpoint: { authURL, tokenURL }` and `infoURL` options of a provider that reads a user-info URL,
 * each checked by endpointURL(); a missing one takes its default when there is one.
 */
export function userInfoEndpoints(
  endpoint: Record<string, unknown>,
  infoURL: unknown,
  defaults: Partial<Record<'authURL' | 'tokenURL' | 'infoURL', string>> = {},
) {
  return {
    authURL: endpointURL(endpoint.authURL ?? defaults.authURL, 'endpoint.authURL'),
    tokenURL: endpointURL(endpoint.tokenURL ?? defaults.tokenURL, 'endpoint.tokenURL'),
    infoURL: endpointURL(infoURL ?? defaults.infoURL, 'infoURL'),
  };
}
