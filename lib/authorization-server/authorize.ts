import type { Context } from 'koa';
import { toAuthError } from '../errors.js';
import { sendAuthorizationResponse } from '../providers/oauth2-server/respond.js';
import type { SessionOf } from '../session/fresh.js';
import { issueCode, refuse } from './answer.js';
import type { OAuthClient } from './clients/index.js';
import { showConsent } from './consent.js';
import { hintedSubject } from './id-token.js';
import type { ServerParts } from './parts.js';
import { checkRequest, type AuthorizationRequest } from './request.js';

/**
 * `GET <authRoutePath>/oauth2/authorize`: the authorization request, checked (request.ts); then the user's own
 * login, every factor of it, through the app's login page and back — again when OpenID's `prompt=login`, `max_age`
 * or `id_token_hint` ask for another one; then consent, asked once per client, scopes and resources unless the client
 * is trusted; then a one-use code sent to the client's redirect URI with `iss` (RFC 9207).
 */
export async function authorize(p: ServerParts, ctx: Context): Promise<void> {
  const checked = await checkRequest(p, new URLSearchParams(ctx.querystring));
  if ('shown' in checked) return shown(ctx, checked.shown, checked.description);
  if ('redirected' in checked) {
    const error = { error: checked.redirected, error_description: checked.description, state: checked.state };
    return sendAuthorizationResponse(ctx, checked.to, { ...error, iss: p.places.issuer });
  }
  const { ok: request, client, params } = checked;
  const hinted = request.idTokenHint === undefined ? undefined : hintedSubject(p, request.idTokenHint);
  if (hinted === null)
    return refuse(p, ctx, request, 'invalid_request', 'id_token_hint is not an id_token of this server');
  const session = await p.session(ctx).catch((err: unknown) => {
    const status = toAuthError(err).status;
    if (status === 401 || status === 403) return undefined;
    throw err;
  });
  const needed = loginNeeded(p, request, session, hinted);
  if (needed || !session) {
    // prompt=none: the client asked that nothing be shown, so it is told instead (OpenID Connect Core §3.1.2.6).
    if (request.prompt.includes('none')) return refuse(p, ctx, request, 'login_required', needed);
    return toLogin(p, ctx, request, params);
  }
  const consented =
    client.trusted ||
    (!request.prompt.includes('consent') &&
      (await p.grants.hasConsent(session.user.id, client.id, request.scopes, request.resources)));
  if (consented) return issueCode(p, ctx, request, session);
  if (request.prompt.includes('none')) return refuse(p, ctx, request, 'consent_required', 'the user has not consented');
  return showConsent(p, ctx, { request, client: clientView(client), userId: session.user.id });
}

/** Why the user must log in (again) for this request; empty when the session's login will do. */
function loginNeeded(
  p: ServerParts,
  request: AuthorizationRequest,
  session: SessionOf | undefined,
  hinted: string | undefined,
): string {
  if (!session) return 'the user is not logged in';
  if (request.prompt.includes('login')) return 'prompt=login asks for a new login';
  const authTime = typeof session.claims.auth_time === 'number' ? session.claims.auth_time : 0;
  // max_age=0 is prompt=login (Core §3.1.2.1, errata): whole seconds would let a login of this second through.
  const age = Math.floor(p.clock() / 1000) - authTime;
  if (request.maxAge !== undefined && (request.maxAge === 0 || age > request.maxAge))
    return 'the login is older than max_age';
  if (hinted !== undefined && hinted !== session.user.id) return 'another user is logged in than id_token_hint names';
  return '';
}

/**
 * The login page, told to come back to this request once the user is in (every factor), and given `login_hint`. The
 * way back no longer asks for a new login (`prompt=login`, `max_age`): the login just made is that one, and a login
 * page that sends a logged-in user straight back cannot loop — the id_token's `auth_time` then tells the client. A
 * request object comes back as the parameters it held.
 */
function toLogin(p: ServerParts, ctx: Context, request: AuthorizationRequest, params: URLSearchParams): void {
  let back = `${p.places.issuer}${ctx.originalUrl}`;
  if (
    request.prompt.includes('login') ||
    request.maxAge !== undefined ||
    new URLSearchParams(ctx.querystring).has('request')
  ) {
    const query = new URLSearchParams(params);
    const prompt = request.prompt.filter((v) => v !== 'login');
    if (prompt.length) query.set('prompt', prompt.join(' '));
    else query.delete('prompt');
    query.delete('max_age');
    back = `${p.places.issuer}${ctx.originalUrl.split('?')[0]}?${query}`;
  }
  const target = new URL(p.loginPage, p.places.issuer);
  target.searchParams.set('from', back);
  if (request.loginHint !== undefined) target.searchParams.set('login_hint', request.loginHint);
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
