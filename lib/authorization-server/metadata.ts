import { CLAIMS_SUPPORTED } from '../providers/oauth2-server/claims.js';
import type { AuthorizationServerConfig } from './options.js';

/**
 * The server's metadata (RFC 8414), served at the site root as `/.well-known/oauth-authorization-server` and
 * `/.well-known/openid-configuration`, each followed by the issuer's path when `url` has one (RFC 8414 §3.1).
 * Everything a client needs to find the endpoints, and what it may ask for: S256 PKCE only, the grant types, the
 * scopes of every resource, client ids that are metadata document URLs, and OpenID Connect Discovery's members (the
 * userinfo endpoint, the id_token's algorithm, the claims).
 */

/** The scopes of OpenID Connect and of refresh tokens: any client may ask for them, with or without a resource. */
export const OPENID_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/** Where the endpoints are: the issuer (`url`) and the auth routes' base. */
export interface ServerPlaces {
  issuer: string;
  /** `<url><authRoutePath>`: the endpoints live under `<authBase>/oauth2/`. */
  authBase: string;
  /** Whether dynamic registration is open (or open to an initial access token). */
  registration: boolean;
  /** Whether client ids may be metadata document URLs. */
  metadataDocuments: boolean;
  /** The signing key's algorithm: access tokens' and id_tokens'. */
  alg: string;
}

/** The endpoints under `<authRoutePath>/oauth2/`, by their metadata names. */
export function endpointsOf(authBase: string): Record<string, string> {
  const at = (name: string) => `${authBase}/oauth2/${name}`;
  return {
    authorization_endpoint: at('authorize'),
    token_endpoint: at('token'),
    userinfo_endpoint: at('userinfo'),
    revocation_endpoint: at('revoke'),
    jwks_uri: `${authBase}/.well-known/jwks.json`,
  };
}

/** The metadata document. */
export function serverMetadata(config: AuthorizationServerConfig, p: ServerPlaces): Record<string, unknown> {
  const scopes = new Set(OPENID_SCOPES);
  for (const r of config.resources.values()) for (const s of r.scopes) scopes.add(s);
  return {
    issuer: p.issuer,
    ...endpointsOf(p.authBase),
    ...(p.registration ? { registration_endpoint: `${p.authBase}/oauth2/register` } : {}),
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: [...scopes],
    subject_types_supported: ['public'],
    // The `signing` key's algorithm alone: id_tokens are signed with it, checked with the one key set the app has.
    id_token_signing_alg_values_supported: [p.alg],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: ['none'],
    request_uri_parameter_supported: false,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: p.metadataDocuments,
  };
}

/**
 * Whether a site-root request path is this issuer's document: `/.well-known/<name>` followed by the issuer's path
 * (`''` for an issuer at the origin's root).
 */
export function isIssuerDocument(path: string, name: string, issuerPath: string): boolean {
  return path === `/.well-known/${name}${issuerPath}`;
}
