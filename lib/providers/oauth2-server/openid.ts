import type { Context } from 'koa';
import { CLAIMS_SUPPORTED, pickClaims, scopesOf, SCOPE_CLAIMS } from './claims.js';
import type { Grant } from './grants.js';
import { json } from './http.js';
import { signIdToken, type IdTokenKeys } from './id-token.js';
import { endSession } from './logout.js';
import { answerUserInfo } from './userinfo.js';
import type { LocalServer, ServerUser } from './options.js';

/**
 * The local server as an OpenID provider, once it has a signer (the service's signing keys): the
 * discovery document, the public key set, id_tokens at the token endpoint and the userinfo endpoint.
 * Without a signer none of this exists and the server is the plain OAuth2 server it always was.
 */

/** The scopes the server knows; others are kept in the grant and answered with nothing. */
const SCOPES = ['openid', ...Object.keys(SCOPE_CLAIMS), 'offline_access'];
/** How long relying parties may keep the discovery document and key set (as the service's JWKS). */
const PUBLIC_MAX_AGE_S = 300;

/**
 * The routes of an OpenID provider, below the server's path: discovery, key set, userinfo, and RP-initiated logout
 * at the plain server's `/logout` (logout.ts).
 */
export const OPENID_PATHS = {
  discovery: '/.well-known/openid-configuration',
  jwks: '/.well-known/jwks.json',
  userinfo: '/userinfo',
  endSession: '/logout',
} as const;

/** Answers an OpenID route for a server with id_token keys; false when `path` is none of them. */
export async function openIDRoute(srv: LocalServer, ids: IdTokenKeys, path: string, ctx: Context): Promise<boolean> {
  switch (path) {
    case OPENID_PATHS.discovery:
      publicJSON(ctx, discovery(srv, ids));
      return true;
    case OPENID_PATHS.jwks:
      publicJSON(ctx, ids.keySet());
      return true;
    case OPENID_PATHS.userinfo:
      await userInfo(srv, ctx);
      return true;
    case OPENID_PATHS.endSession:
      await endSession(srv, ids, ctx);
      return true;
    default:
      return false;
  }
}

/** Whether a grant's scope asks for OpenID (an id_token, the userinfo endpoint). */
export function hasOpenIDScope(scope: string | undefined): boolean {
  return scopesOf(scope).includes('openid');
}

/**
 * The id_token for a grant whose scope has `openid`: who signed in (sub), for which client (aud),
 * when (auth_time), in which sign-in session (sid), the request's nonce (not on a refresh), the access
 * token's hash, and the claims its scopes and `claims` parameter ask for. Signed as the client
 * registered (RS256 by default).
 */
export async function idToken(
  srv: LocalServer,
  ids: IdTokenKeys,
  grant: Grant<ServerUser>,
  accessToken: string,
  refreshed: boolean,
): Promise<string> {
  const nowS = Math.floor(srv.o.clock() / 1000);
  const alg = srv.o.clients.get(grant.clientId)?.idTokenSignedResponseAlg ?? 'RS256';
  return signIdToken(ids, alg, {
    issuer: srv.base,
    subject: grant.user.id,
    audience: grant.clientId,
    nowS,
    lifetimeS: Math.floor(srv.o.tokenTTL / 1000),
    authTime: grant.authTime ?? nowS,
    sid: grant.sid,
    nonce: refreshed ? undefined : grant.nonce,
    accessToken,
    userClaims: await userClaims(srv, grant, grant.claims?.id_token ?? []),
  });
}

/** The discovery document (OpenID Connect Discovery 1.0 §3): the server's endpoints and what it supports. */
function discovery(srv: LocalServer, ids: IdTokenKeys): Record<string, unknown> {
  const base = srv.base;
  return {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/access_token`,
    userinfo_endpoint: base + OPENID_PATHS.userinfo,
    jwks_uri: base + OPENID_PATHS.jwks,
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ids.algs,
    scopes_supported: SCOPES,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: CLAIMS_SUPPORTED,
    claims_parameter_supported: true,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: ['none'],
    request_uri_parameter_supported: false,
    display_values_supported: ['page', 'popup'],
    authorization_response_iss_parameter_supported: true,
    end_session_endpoint: base + OPENID_PATHS.endSession,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}

/** The userinfo endpoint (userinfo.ts) over the server's access tokens, kept in memory. */
function userInfo(srv: LocalServer, ctx: Context): Promise<void> {
  return answerUserInfo(ctx, (token) => {
    const grant = srv.grants.accessGrant(token);
    if (!grant) return undefined;
    const claims = () => userClaims(srv, grant, grant.claims?.userinfo ?? []);
    return { scopes: scopesOf(grant.scope), sub: grant.user.id, claims };
  });
}

/** The user's claims the grant's scopes and the `claims` parameter (`named`, at this place) let out. */
async function userClaims(
  srv: LocalServer,
  grant: Grant<ServerUser>,
  named: string[],
): Promise<Record<string, unknown>> {
  const scopes = scopesOf(grant.scope);
  const all = await srv.claims(grant.user, { scopes, client: grant.clientId });
  return pickClaims(all ?? {}, scopes, named);
}

/** A JSON document anyone may read and cache for a while (discovery, key set). */
function publicJSON(ctx: Context, body: unknown): void {
  json(ctx, 200, body);
  ctx.set('Cache-Control', `public, max-age=${PUBLIC_MAX_AGE_S}`);
  ctx.set('Access-Control-Allow-Origin', '*');
}
