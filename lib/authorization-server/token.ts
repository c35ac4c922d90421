import type { Context } from 'koa';
import { json } from '../providers/oauth2-server/http.js';
import { clientRequest } from './client-request.js';
import { issueAccessToken } from './access-token.js';
import { issueIdToken } from './id-token.js';
import type { OAuthClient } from './clients/index.js';
import type { Family } from './grant-store.js';
import type { ServerParts } from './parts.js';
import { checkResources, scopesOf } from './request.js';

/**
 * `POST <authRoutePath>/oauth2/token`: the authorization code (PKCE for every client), refresh (rotated at each use;
 * a reused one revokes its family) and client credentials grants. Every answer is JSON and `no-store`; an error is
 * RFC 6749 §5.2's, 401 for a client that failed to authenticate.
 */

/** An OAuth error of the token endpoint. */
interface TokenError {
  error: string;
  description: string;
}

export async function tokenEndpoint(p: ServerParts, ctx: Context): Promise<void> {
  const request = await clientRequest(p, ctx, 'token');
  if (!request) return;
  const { params, form, client } = request;
  const grantType = form.grant_type ?? '';
  const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
  if (!grant) return tokenError(ctx, { error: 'unsupported_grant_type', description: `grant_type ${grantType}` });
  if (!client.grantTypes.includes(grantType))
    return tokenError(ctx, { error: 'unauthorized_client', description: `this client may not use ${grantType}` });
  const outcome = await grant(p, client, params);
  if ('error' in outcome) return tokenError(ctx, outcome);
  const { family, refreshToken, resources, scopes } = outcome;
  const access = await issueAccessToken(p.accessTokens, { ...family, resources, scopes });
  // A user's grant with `openid`, by its code or a refresh (OpenID Connect Core §12.2), comes with an id_token.
  const openID = scopes.includes('openid') && grantType !== 'client_credentials';
  const idToken = openID ? await issueIdToken(p, { ...family, scopes }, access.token, outcome.nonce) : undefined;
  p.emit('token_issued', { clientId: client.id, userId: family.userId, grantType, scopes, resources }, ctx);
  json(ctx, 200, {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    scope: scopes.join(' '),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(idToken ? { id_token: idToken } : {}),
  });
}

/**
 * What a grant gives: the family, the token's scopes and resources, a refresh token when one is due, and the
 * authorization request's nonce for a code's id_token.
 */
type Granted =
  { family: Family; scopes: string[]; resources: string[]; refreshToken?: string; nonce?: string } | TokenError;
type Grant = (p: ServerParts, client: OAuthClient, params: URLSearchParams) => Promise<Granted>;

const GRANTS: Record<string, Grant> = {
  authorization_code: codeGrant,
  refresh_token: refreshGrant,
  client_credentials: clientCredentialsGrant,
};

async function codeGrant(p: ServerParts, client: OAuthClient, params: URLSearchParams): Promise<Granted> {
  const redeemed = await p.grants.redeemCode(params.get('code') ?? '', {
    clientId: client.id,
    redirectURI: params.get('redirect_uri') ?? undefined,
    verifier: params.get('code_verifier') ?? undefined,
  });
  if ('error' in redeemed) return { error: redeemed.error, description: redeemed.description };
  const { family, grant } = redeemed;
  const resources = narrowed(family.resources, params.getAll('resource'));
  if (typeof resources === 'string') return { error: 'invalid_target', description: resources };
  const refresh =
    client.grantTypes.includes('refresh_token') &&
    (family.scopes.includes('offline_access') || client.source === 'options');
  const refreshToken = refresh ? await p.grants.issueRefresh(family) : undefined;
  return { family, scopes: family.scopes, resources, refreshToken, nonce: grant.nonce };
}

async function refreshGrant(p: ServerParts, client: OAuthClient, params: URLSearchParams): Promise<Granted> {
  const scope = params.get('scope');
  const asked = params.getAll('resource');
  const refreshed = await p.grants.refresh(params.get('refresh_token') ?? '', {
    clientId: client.id,
    ...(scope !== null ? { scopes: scope.split(' ').filter(Boolean) } : {}),
    ...(asked.length ? { resources: asked } : {}),
  });
  if ('error' in refreshed) return { error: refreshed.error, description: refreshed.description };
  const { family, refreshToken } = refreshed;
  return { family, scopes: family.scopes, resources: family.resources, refreshToken };
}

/** A confidential client acting for itself: `sub` is its id, no refresh token (it can always ask again). */
async function clientCredentialsGrant(p: ServerParts, client: OAuthClient, params: URLSearchParams): Promise<Granted> {
  if (!client.confidential) return { error: 'unauthorized_client', description: 'client_credentials needs a secret' };
  const resources = params.getAll('resource');
  const target = checkResources(p, client, resources);
  if (target) return { error: 'invalid_target', description: target };
  const scopes = scopesOf(p, client, params.get('scope'), resources);
  if (typeof scopes === 'string') return { error: 'invalid_scope', description: scopes };
  // It lives as long as its access token: no refresh token extends it.
  const family = await p.grants.startFamily({
    userId: client.id,
    clientId: client.id,
    scopes,
    resources,
    ttlMs: p.config.accessTokenTTLMs,
  });
  return { family, scopes, resources };
}

/** The resources an access token is for: those asked at the token endpoint (a subset of the grant's), or all. */
function narrowed(granted: string[], asked: string[]): string[] | string {
  if (!asked.length) return granted;
  const outside = asked.find((r) => !granted.includes(r));
  return outside === undefined ? [...new Set(asked)] : `resource ${outside} was not granted`;
}

function tokenError(ctx: Context, e: TokenError): void {
  json(ctx, 400, { error: e.error, error_description: e.description });
}
