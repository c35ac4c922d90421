import type { Context } from 'koa';
import { json } from '../providers/oauth2-server/http.js';
import { clientRequest } from './client-request.js';
import { ownAccessToken } from './own-token.js';
import type { ServerParts } from './parts.js';

/**
 * `POST <authRoutePath>/oauth2/revoke` (RFC 7009): a client revokes its own refresh or access token, and with it
 * the whole grant family (RFC 7009 §2.1 allows it, and a leaked token's siblings are as suspect). The answer is 200
 * whatever the token was, so the endpoint tells nothing about tokens it did not issue to this client.
 */
export async function revokeEndpoint(p: ServerParts, ctx: Context): Promise<void> {
  const request = await clientRequest(p, ctx, 'revoke');
  if (!request) return;
  const token = request.form.token;
  if (!token) return json(ctx, 400, { error: 'invalid_request', error_description: 'token is missing' });
  const clientId = request.client.id;
  // What it revokes is told as `grant_revoked` by the store's listener (server.ts).
  if (!(await p.grants.revokeRefresh(token, clientId))) {
    const claims = ownAccessToken(token, p.keySet(), p.places.issuer);
    if (claims?.client_id === clientId) await p.grants.revokeFamily(claims.sid);
  }
  // 200 with no body (RFC 7009 §2.2): an empty string would go out as text/plain, and a null body alone as a 204.
  ctx.body = null;
  ctx.status = 200;
}
