import type { Context } from 'koa';
import { pickClaims } from '../providers/oauth2-server/claims.js';
import { sendAuthorizationResponse } from '../providers/oauth2-server/respond.js';
import type { SessionOf } from '../session/fresh.js';
import type { CodeGrant } from './grant-types.js';
import type { ServerParts } from './parts.js';
import type { AuthorizationRequest } from './request.js';

/** The two ends of an authorization request that passed its checks: a code, or an error, sent to the client. */

/** A one-use code for the request, sent to the client. */
export async function issueCode(
  p: ServerParts,
  ctx: Context,
  request: AuthorizationRequest,
  session: SessionOf,
): Promise<void> {
  const { claims, user } = session;
  const openID = request.scopes.includes('openid') ? await openIDOf(p, request, session) : {};
  const code = await p.grants.issueCode({
    clientId: request.clientId,
    redirectURI: request.redirectURI,
    redirectURIOmitted: request.redirectURIOmitted,
    challenge: request.challenge,
    scopes: request.scopes,
    resources: request.resources,
    userId: user.id,
    authTime: typeof claims.auth_time === 'number' ? claims.auth_time : Math.floor(p.clock() / 1000),
    ...(request.nonce !== undefined ? { nonce: request.nonce } : {}),
    ...(typeof claims.sid === 'string' ? { sid: claims.sid } : {}),
    ...openID,
  });
  const to = { redirectURI: request.redirectURI, mode: request.responseMode };
  sendAuthorizationResponse(ctx, to, { code, state: request.state, iss: p.places.issuer });
}

/**
 * What an OpenID grant keeps of the user: the claims of the session's user (the `claims` option's, or the default)
 * that its scopes and `claims` parameter may let out, at either place, and nothing else.
 */
async function openIDOf(
  p: ServerParts,
  request: AuthorizationRequest,
  session: SessionOf,
): Promise<Pick<CodeGrant, 'profile' | 'claims'>> {
  const all = await p.claims(session.user, { scopes: request.scopes, client: request.clientId });
  const named = [...(request.claims?.userinfo ?? []), ...(request.claims?.id_token ?? [])];
  const profile = pickClaims(all ?? {}, request.scopes, named);
  return {
    ...(Object.keys(profile).length > 0 && { profile }),
    ...(request.claims && { claims: request.claims }),
  };
}

/** An error sent back to the client. */
export function refuse(
  p: ServerParts,
  ctx: Context,
  request: AuthorizationRequest,
  error: string,
  description: string,
): void {
  const to = { redirectURI: request.redirectURI, mode: request.responseMode };
  sendAuthorizationResponse(ctx, to, {
    error,
    error_description: description,
    state: request.state,
    iss: p.places.issuer,
  });
}
