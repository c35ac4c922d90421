import type { Context } from 'koa';
import { toAuthError } from '../errors.js';
import { sendAuthorizationResponse } from '../providers/oauth2-server/respond.js';
import { issueCode, refuse } from './answer.js';
import type { OAuthClient } from './clients/index.js';
import { showConsent } from './consent.js';
import type { ServerParts } from './parts.js';
import { checkRequest } from './request.js';

/**
 * `GET <authRoutePath>/oauth2/authorize`: the authorization request, checked (request.ts); then the user's own
 * login, every factor of it, through the app's login page and back; then consent, asked once per client, scopes
 * and resources unless the client is trusted; then a one-use code sent to the client's redirect URI with `iss`
 * (RFC 9207).
 */
export async function authorize(p: ServerParts, ctx: Context): Promise<void> {
  const checked = await checkRequest(p, new URLSearchParams(ctx.querystring));
  if ('shown' in checked) return shown(ctx, checked.shown, checked.description);
  if ('redirected' in checked) {
    const error = { error: checked.redirected, error_description: checked.description, state: checked.state };
    return sendAuthorizationResponse(ctx, checked.to, { ...error, iss: p.places.issuer });
  }
  const { ok: request, client } = checked;
  const session = await p.session(ctx).catch((err: unknown) => {
    const status = toAuthError(err).status;
    if (status === 401 || status === 403) return undefined;
    throw err;
  });
  if (!session || request.prompt.includes('login')) {
    if (request.prompt.includes('none')) return refuse(p, ctx, request, 'login_required', 'the user is not logged in');
    return toLogin(p, ctx);
  }
  const consented =
    client.trusted ||
    (!request.prompt.includes('consent') &&
      (await p.grants.hasConsent(session.user.id, client.id, request.scopes, request.resources)));
  if (consented) return issueCode(p, ctx, request, session);
  if (request.prompt.includes('none')) return refuse(p, ctx, request, 'consent_required', 'the user has not consented');
  return showConsent(p, ctx, { request, client: clientView(client), userId: session.user.id });
}

/** The login page, told to come back to this very request once the user is in (every factor). */
function toLogin(p: ServerParts, ctx: Context): void {
  const back = `${p.places.issuer}${ctx.originalUrl.replace(/([?&])prompt=login(&|$)/, '$1').replace(/[?&]$/, '')}`;
  const target = new URL(p.loginPage, p.places.issuer);
  target.searchParams.set('from', back);
  ctx.status = 302;
  ctx.redirect(target.href);
}

/** An error the user sees, never redirected: JSON, as every authkoa answer. */
function shown(ctx: Context, error: string, description: string): void {
  ctx.status = 400;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = JSON.stringify({ error, error_description: description });
}

/** What the consent page says of a client: a metadata document's host first, so a look-alike name cannot pass. */
function clientView(client: OAuthClient): { id: string; name: string; host?: string } {
  return { id: client.id, name: client.name ?? client.id, ...(client.host ? { host: client.host } : {}) };
}
