import { redirectURIProblem } from './redirect-uris.js';
import type { ClientError, GrantType } from './types.js';

/**
 * Client metadata (RFC 7591 §2) as a registration request or a Client ID Metadata Document carries it, checked into
 * what this server keeps. Members it does not use (logo_uri, contacts, jwks, software_statement, …) are ignored, as
 * §2 allows; what it keeps is bounded, since a registration is stored and a document cached.
 */

export type AuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
export type ApplicationType = 'web' | 'native';

/** The metadata, checked. */
export interface ClientMetadata {
  redirectURIs: string[];
  grantTypes: GrantType[];
  responseTypes: string[];
  authMethod: AuthMethod;
  applicationType: ApplicationType;
  name?: string;
  scopes?: string[];
}

/** What the caller takes: the methods it offers and the one an absent `token_endpoint_auth_method` means. */
export interface MetadataRules {
  authMethods: readonly AuthMethod[];
  defaultAuthMethod: AuthMethod;
  allowHttpRedirects: boolean;
}

const GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
/** What a client asked for without `grant_types` (RFC 7591 lets the server choose; the options' default). */
const DEFAULT_GRANTS: GrantType[] = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 20;
const MAX_NAME_LENGTH = 200;
/** A scope token (RFC 6749 §3.3: NQCHAR). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

class MetadataError extends Error {
  constructor(
    readonly code: 'invalid_client_metadata' | 'invalid_redirect_uri',
    readonly description: string,
  ) {
    super(description);
  }
}

function refuse(description: string): never {
  throw new MetadataError('invalid_client_metadata', description);
}

/**
 * `body` checked as client metadata under `rules`; else a ClientError (`invalid_client_metadata`,
 * `invalid_redirect_uri`).
 */
export function checkMetadata(body: unknown, rules: MetadataRules): ClientMetadata | ClientError {
  try {
    return readMetadata(body, rules);
  } catch (err) {
    if (err instanceof MetadataError) return { error: err.code, description: err.description };
    throw err;
  }
}

function readMetadata(body: unknown, rules: MetadataRules): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) refuse('the metadata must be a JSON object');
  const m = body as Record<string, unknown>;
  const applicationType = oneOf(m.application_type, ['web', 'native'] as const, 'web', 'application_type');
  const authMethod = oneOf(
    m.token_endpoint_auth_method,
    rules.authMethods,
    rules.defaultAuthMethod,
    'token_endpoint_auth_method',
  );
  const grantTypes = readGrantTypes(m.grant_types, authMethod);
  const responseTypes = readResponseTypes(m.response_types, grantTypes);
  const redirectURIs = readRedirectURIs(m.redirect_uris, grantTypes, applicationType, rules.allowHttpRedirects);
  return {
    redirectURIs,
    grantTypes,
    responseTypes,
    authMethod,
    applicationType,
    ...(m.client_name !== undefined && { name: readName(m.client_name) }),
    ...(m.scope !== undefined && { scopes: readScope(m.scope) }),
  };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], absent: T, field: string): T {
  if (value === undefined) return absent;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  return refuse(`${field} ${JSON.stringify(value)} is not supported (supported: ${allowed.join(', ')})`);
}

function readGrantTypes(value: unknown, authMethod: AuthMethod): GrantType[] {
  if (value === undefined) return [...DEFAULT_GRANTS];
  if (!Array.isArray(value) || value.length === 0) refuse('grant_types must be a non-empty array');
  const grants = value as unknown[];
  for (const g of grants)
    if (!GRANT_TYPES.includes(g as GrantType)) refuse(`grant_type ${JSON.stringify(g)} is not supported`);
  // Client credentials are the client's own: a client with nothing to authenticate with cannot have them.
  if (grants.includes('client_credentials') && authMethod === 'none')
    refuse('client_credentials needs a client secret (token_endpoint_auth_method other than none)');
  return [...new Set(grants as GrantType[])];
}

/** Only the code flow is served: `response_types` is `["code"]` with the authorization_code grant, else empty. */
function readResponseTypes(value: unknown, grants: readonly GrantType[]): string[] {
  const code = grants.includes('authorization_code');
  if (value === undefined) return code ? ['code'] : [];
  if (!Array.isArray(value) || !value.every((t) => t === 'code'))
    refuse('response_types may only be ["code"] (the authorization code flow)');
  if ((value as unknown[]).length > 0 !== code)
    refuse('response_types ["code"] goes with grant_types authorization_code, and only with it');
  return code ? ['code'] : [];
}

function readRedirectURIs(value: unknown, grants: readonly GrantType[], type: ApplicationType, http: boolean) {
  const needed = grants.includes('authorization_code');
  if (value === undefined && !needed) return [];
  if (!Array.isArray(value) || (needed && value.length === 0))
    throw new MetadataError('invalid_redirect_uri', 'redirect_uris must list at least one URI');
  if (value.length > MAX_REDIRECT_URIS)
    throw new MetadataError('invalid_redirect_uri', `redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of value as unknown[]) {
    const problem = redirectURIProblem(uri, type, http);
    if (problem) throw new MetadataError('invalid_redirect_uri', `redirect_uri ${JSON.stringify(uri)} ${problem}`);
  }
  return [...new Set(value as string[])];
}

function readName(value: unknown): string {
  // Shown on the consent page: text of a bounded length, no control characters.
  if (typeof value !== 'string' || value.length > MAX_NAME_LENGTH || /[\p{Cc}]/u.test(value))
    refuse(`client_name must be text of at most ${MAX_NAME_LENGTH} characters`);
  return value;
}

function readScope(value: unknown): string[] {
  const tokens = typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
  if (typeof value !== 'string' || value.length > 1000 || !tokens.every((s) => SCOPE_TOKEN.test(s)))
    refuse('scope must be a space-separated list of scope tokens');
  return [...new Set(tokens)];
}
