import type { Context } from 'koa';
import { safeEqual } from '../../util/safe-equal.js';
import type { OAuth2ServerClient } from './clients.js';
import type { Exchange } from './grants.js';
import { basicCredentials, json, readForm } from './http.js';
import { MAX_FORM } from './listener.js';
import { hasOpenIDScope, idToken } from './openid.js';
import type { LocalServer, ServerUser } from './options.js';

/**
 * The local server's token endpoint: a registered client proves itself (HTTP Basic or form fields; a
 * public client names itself), then spends a code (`authorization_code`) or a refresh token
 * (`refresh_token`, for a client registered with `refreshTokens`). Answers are never cached
 * (`Cache-Control: no-store`, set for every answer by the server's guard, and `Pragma: no-cache`).
 */
export async function tokenEndpoint(srv: LocalServer, ctx: Context): Promise<void> {
  // First, so that every answer has it: a refused client's (401) as much as a token's.
  ctx.set('Pragma', 'no-cache');
  const form = await readForm(ctx, MAX_FORM);
  const client = authenticated(srv, ctx, form);
  if (!client) {
    ctx.set('WWW-Authenticate', 'Basic realm="oauth2"');
    return json(ctx, 401, { error: 'invalid_client' });
  }
  const result =
    form.grant_type === 'refresh_token'
      ? client.refreshTokens
        ? srv.grants.refresh(form, client.id)
        : { error: 'unauthorized_client', description: 'this client is not registered for refresh tokens' }
      : srv.grants.exchange(form, { id: client.id, authenticated: true });
  if ('error' in result)
    return json(ctx, 400, {
      error: result.error,
      ...(result.description ? { error_description: result.description } : {}),
    });
  json(ctx, 200, await tokens(srv, client, result, form.grant_type === 'refresh_token'));
}

/** The client a token request comes from, its secret checked when it has one. */
function authenticated(
  srv: LocalServer,
  ctx: Context,
  form: Record<string, string | undefined>,
): OAuth2ServerClient | undefined {
  const basic = basicCredentials(ctx.get('authorization'));
  const client = srv.o.clients.get(basic?.id ?? form.client_id ?? '');
  if (!client) return undefined;
  if (client.secret !== undefined && !safeEqual(basic?.secret ?? form.client_secret ?? '', client.secret))
    return undefined;
  return client;
}

/** The token response: the access token, a rotated refresh token for a client that has them, an id_token for openid. */
async function tokens(
  srv: LocalServer,
  client: OAuth2ServerClient,
  issued: Exclude<Exchange<ServerUser>, { error: string }>,
  refreshed: boolean,
): Promise<Record<string, unknown>> {
  const { scope } = issued.grant;
  const ids = srv.ids;
  const openID = ids && hasOpenIDScope(scope);
  // The client is told when the sign-in session it got an id_token in ends (Back-Channel Logout).
  if (openID) srv.backchannel?.issued(issued.grant.sid, client.id, issued.grant.user.id);
  return {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: Math.floor(srv.o.tokenTTL / 1000),
    ...(scope ? { scope } : {}),
    ...(client.refreshTokens ? { refresh_token: issued.refreshToken ?? srv.grants.issueRefresh(issued) } : {}),
    ...(openID ? { id_token: await idToken(srv, ids, issued.grant, issued.token, refreshed) } : {}),
  };
}
