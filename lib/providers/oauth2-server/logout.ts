import type { Context } from 'koa';
import { randomId } from '../../session/claims.js';
import { safeEqual } from '../../util/safe-equal.js';
import { readFormParams, singleParams, text, withParams } from './http.js';
import type { IdTokenKeys } from './id-token.js';
import { MAX_FORM } from './listener.js';
import { confirmLogoutPage, type LogoutRequest } from './logout-page.js';
import type { LocalServer } from './options.js';
import { FIELDS } from './page.js';
import { foreignOrigin, sessionOf, signOut } from './sign-in.js';

/**
 * OpenID Connect RP-Initiated Logout 1.0 at an OpenID provider's `/logout` (its `end_session_endpoint`).
 * A client sends the browser here with `id_token_hint`, `client_id`, `post_logout_redirect_uri` and
 * `state`. A hint naming the very sign-in session the browser has (its `sub` and `sid`) ends it at once;
 * anything else is asked on a confirmation page whose form (CSRF token, Origin check) ends it, so a link
 * from another site cannot sign a user out unnoticed. Once ended, the clients that got id_tokens in the
 * session are told (Back-Channel Logout, backchannel.ts) and the browser goes back to the registered
 * `post_logout_redirect_uri` with `state`, or sees a plain "signed out".
 */

/** GET or POST `/logout` of an OpenID provider. */
export async function endSession(srv: LocalServer, ids: IdTokenKeys, ctx: Context): Promise<void> {
  if (ctx.method !== 'GET' && ctx.method !== 'POST') return text(ctx, 405, 'GET or POST only');
  const posted = ctx.method === 'POST' ? await readFormParams(ctx, MAX_FORM) : undefined;
  // A client's request sent as a form comes from another site, without the (SameSite=Lax) session cookie: it is
  // made again as a GET, a top-level navigation that carries the cookie. Only the confirmation form has a CSRF token.
  if (posted && !posted.has(FIELDS.csrf)) {
    ctx.status = 303;
    return ctx.redirect(`${srv.basePath}/logout?${posted}`);
  }
  const q = singleParams(posted ?? new URLSearchParams(ctx.querystring));
  if (!q) return text(ctx, 400, 'a parameter is repeated');
  const req = logoutRequest(srv, ids, q);
  if (typeof req === 'string') return text(ctx, 400, req);
  const sess = sessionOf(ctx);
  // Nobody is signed in: there is nothing to end, and nothing to ask.
  if (!sess.user) return answer(ctx, req);
  if (posted) {
    if (!sess.csrf || !safeEqual(q[FIELDS.csrf] ?? '', sess.csrf) || foreignOrigin(srv.base, ctx)) {
      sess.csrf = randomId();
      return confirmLogoutPage(srv, ctx, req, 403, 'The sign-out form expired or did not come from this page.');
    }
    return endAndAnswer(srv, ctx, req);
  }
  const { hint } = req;
  if (hint && hint.sub === sess.user.id && sess.sid !== undefined && hint.sid === sess.sid)
    return endAndAnswer(srv, ctx, req);
  return confirmLogoutPage(srv, ctx, req, 200);
}

/**
 * The request's parameters checked, or why it is refused (a 400 page, never a redirect): a hint that is no
 * id_token of this provider, an unknown `client_id` or one the hint was not issued to, a
 * `post_logout_redirect_uri` without a client or not registered for it.
 */
function logoutRequest(srv: LocalServer, ids: IdTokenKeys, q: Record<string, string>): LogoutRequest | string {
  let hint: Record<string, unknown> | undefined;
  if (q.id_token_hint !== undefined) {
    hint = ids.hinted(q.id_token_hint, srv.base);
    if (!hint) return 'id_token_hint is not an id_token of this provider';
  }
  const audiences = hint ? [hint.aud].flat().filter((a): a is string => typeof a === 'string') : [];
  if (q.client_id !== undefined && !srv.o.clients.has(q.client_id)) return 'unknown client_id';
  if (q.client_id !== undefined && hint && !audiences.includes(q.client_id))
    return 'id_token_hint was issued to another client than client_id';
  const client = srv.o.clients.get(q.client_id ?? (audiences.length === 1 ? audiences[0] : ''));
  const redirect = q.post_logout_redirect_uri;
  if (redirect !== undefined && !client) return 'post_logout_redirect_uri needs client_id or id_token_hint';
  if (redirect !== undefined && !client!.postLogoutRedirectURIs?.includes(redirect))
    return 'post_logout_redirect_uri is not registered for this client';
  return { hint, client, redirect, state: q.state };
}

/** Ends the sign-in session, tells its clients (their first tries awaited), then answers. */
async function endAndAnswer(srv: LocalServer, ctx: Context, req: LogoutRequest): Promise<void> {
  const { sid, user } = sessionOf(ctx);
  signOut(ctx);
  srv.o.logger.info(`oauth2 server: ${JSON.stringify(user?.id)} signed out`, { provider: 'server', userId: user?.id });
  await srv.backchannel?.ended(sid);
  answer(ctx, req);
}

/** Back to the registered address with `state` (303 after the form's post, else 302), or "signed out". */
function answer(ctx: Context, req: LogoutRequest): void {
  if (!req.redirect) return text(ctx, 200, 'signed out');
  ctx.status = ctx.method === 'POST' ? 303 : 302;
  ctx.redirect(withParams(req.redirect, { state: req.state }));
}
