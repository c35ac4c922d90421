import type { Context } from 'koa';
import type { Grant } from './grants.js';
import { json } from './http.js';
import type { LocalServer, ServerUser } from './options.js';
import type { JwtSigner } from '../core/contract.js';

/**
 * The local server as an OpenID provider, once it has a signer (the service's signing keys): the
 * discovery document, the public key set, id_tokens at the token endpoint and the userinfo endpoint.
 * Without a signer none of this exists and the server is the plain OAuth2 server it always was.
 */

/** The scopes the server knows; others are kept in the grant and answered with nothing. */
const SCOPES = ['openid', 'profile', 'email'];
const CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'name', 'picture', 'email'];
/** How long relying parties may keep the discovery document and key set (as the service's JWKS). */
const PUBLIC_MAX_AGE_S = 300;

/** The routes of an OpenID provider, below the server's path: discovery, key set, userinfo. */
export const OPENID_PATHS = {
  discovery: '/.well-known/openid-configuration',
  jwks: '/.well-known/jwks.json',
  userinfo: '/userinfo',
} as const;

/** Answers an OpenID route for a server with a signer; false when `path` is none of them. */
export function openIDRoute(srv: LocalServer, signer: JwtSigner, path: string, ctx: Context): boolean {
  switch (path) {
    case OPENID_PATHS.discovery:
      publicJSON(ctx, discovery(srv, signer));
      return true;
    case OPENID_PATHS.jwks:
      publicJSON(ctx, signer.keySet());
      return true;
    case OPENID_PATHS.userinfo:
      userInfo(srv, ctx);
      return true;
    default:
      return false;
  }
}

/** Whether a grant's scope asks for OpenID (an id_token, the userinfo endpoint). */
export function hasOpenIDScope(scope: string | undefined): boolean {
  return scopes(scope).includes('openid');
}

/**
 * The id_token for a grant whose scope has `openid`: who signed in (sub), for which client (aud),
 * when (auth_time), the request's nonce, and the profile claims its scopes ask for.
 */
export async function idToken(srv: LocalServer, signer: JwtSigner, grant: Grant<ServerUser>): Promise<string> {
  const iat = Math.floor(srv.o.clock() / 1000);
  return signer.sign({
    iss: srv.base,
    sub: grant.user.id,
    aud: grant.clientId,
    exp: iat + Math.floor(srv.o.tokenTTL / 1000),
    iat,
    auth_time: grant.authTime ?? iat,
    ...(grant.nonce !== undefined ? { nonce: grant.nonce } : {}),
    ...profileClaims(srv, grant.user, grant.scope),
  });
}

/** The discovery document (OpenID Connect Discovery 1.0 §3): the server's endpoints and what it supports. */
function discovery(srv: LocalServer, signer: JwtSigner): Record<string, unknown> {
  const base = srv.base;
  return {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/access_token`,
    userinfo_endpoint: base + OPENID_PATHS.userinfo,
    jwks_uri: base + OPENID_PATHS.jwks,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [signer.alg],
    scopes_supported: SCOPES,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: CLAIMS,
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * The userinfo endpoint (OpenID Connect Core §5.3), GET or POST with a Bearer access token: `sub` and
 * the claims the token's scopes ask for. A token issued without `openid` is refused (403 insufficient_scope).
 */
function userInfo(srv: LocalServer, ctx: Context): void {
  if (ctx.method !== 'GET' && ctx.method !== 'POST')
    return json(ctx, 405, { error: 'invalid_request', error_description: 'GET or POST only' });
  const grant = srv.grants.bearer(ctx.get('authorization'));
  if (!grant) {
    ctx.set('WWW-Authenticate', 'Bearer error="invalid_token"');
    return json(ctx, 401, { error: 'invalid_token' });
  }
  if (!hasOpenIDScope(grant.scope)) {
    ctx.set('WWW-Authenticate', 'Bearer error="insufficient_scope", scope="openid"');
    return json(ctx, 403, { error: 'insufficient_scope' });
  }
  json(ctx, 200, { sub: grant.user.id, ...profileClaims(srv, grant.user, grant.scope) });
}

/**
 * `profile` gives name and picture (the id and its identicon when the checker gave none), `email` the email when there
 * is one.
 */
function profileClaims(srv: LocalServer, u: ServerUser, scope: string | undefined): Record<string, string> {
  const asked = scopes(scope);
  const out: Record<string, string> = {};
  if (asked.includes('profile')) {
    out.name = u.name || u.id;
    out.picture = u.picture || `${srv.base}/avatar?user=${encodeURIComponent(u.id)}`;
  }
  if (asked.includes('email') && u.email) out.email = u.email;
  return out;
}

function scopes(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

/** A JSON document anyone may read and cache for a while (discovery, key set). */
function publicJSON(ctx: Context, body: unknown): void {
  json(ctx, 200, body);
  ctx.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_S}`);
  ctx.set('Access-Control-Allow-Origin', '*');
}
