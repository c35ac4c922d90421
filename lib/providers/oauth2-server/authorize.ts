import type { Context } from 'koa';
import { firstValues, readFormParams } from './http.js';
import { MAX_FORM } from './listener.js';
import type { LocalServer } from './options.js';
import { authorizationRequest, type AuthorizationRequest } from './request.js';
import { respond } from './respond.js';
import { pageFor, sessionOf, signIn, type Sess } from './sign-in.js';

/**
 * The local server's authorization endpoint: GET shows the login page or, for a user signed in recently
 * enough, sends the client its code; POST is the sign-in form. OpenID's `prompt`, `max_age` and
 * `id_token_hint` decide whether a remembered sign-in is enough.
 */
export async function authorize(srv: LocalServer, ctx: Context): Promise<void> {
  const posted = ctx.method === 'POST' ? await readFormParams(ctx, MAX_FORM) : undefined;
  // An authorization request sent as a form (OpenID Connect Core §3.1.2.1: GET and POST) is the same request as a
  // GET, every value kept (a repeated parameter is refused there as it would be in a query).
  if (posted && !ctx.querystring && posted.has('client_id')) {
    ctx.status = 303;
    return ctx.redirect(`${srv.basePath}/authorize?${posted}`);
  }
  const form = posted && firstValues(posted);
  const req = authorizationRequest(srv, ctx);
  if (!req) return;
  const showPage = pageFor(srv, ctx, req);
  if (form) return signIn(srv, ctx, showPage, form);
  const sess = sessionOf(ctx);
  const hint = req.idTokenHint === undefined ? undefined : srv.ids?.hinted(req.idTokenHint, srv.base);
  if (req.idTokenHint !== undefined && srv.ids && !hint)
    return respond(srv, ctx, req, {
      error: 'invalid_request',
      error_description: 'id_token_hint is not an id_token of this provider',
      state: req.state,
    });
  const hintedSub = hint?.sub as string | undefined;
  // Another user than the hint names signed in on the page just now: the client is told (Core §3.1.2.1).
  if (sess.fresh && sess.user && hintedSub !== undefined && hintedSub !== sess.user.id)
    return respond(srv, ctx, req, {
      error: 'login_required',
      error_description: 'the user who signed in is not the one id_token_hint names',
      state: req.state,
    });
  const needed = signInNeeded(srv, sess, req, hintedSub);
  if (needed) {
    // prompt=none: the client asked not to show anything, so it is told instead (OpenID Connect Core §3.1.2.6).
    if (req.prompt.includes('none'))
      return respond(srv, ctx, req, { error: 'login_required', error_description: needed, state: req.state });
    return showPage(200);
  }
  sess.fresh = undefined;
  const code = srv.grants.issueCode({
    clientId: req.client.id,
    redirectURI: req.redirectURI,
    challenge: req.challenge,
    scope: req.scope,
    nonce: req.nonce,
    authTime: sess.authTime ?? Math.floor(srv.o.clock() / 1000),
    claims: req.claims,
    sid: sess.sid,
    user: sess.user!,
  });
  respond(srv, ctx, req, { code, state: req.state });
}

/** Why the user must sign in (again) for this request; undefined when the remembered sign-in will do. */
function signInNeeded(srv: LocalServer, sess: Sess, req: AuthorizationRequest, hintedSub?: string): string | undefined {
  if (!sess.user) return 'no user is signed in';
  // The sign-in just made on the page is what prompt=login and max_age asked for.
  if (sess.fresh) return undefined;
  if (req.prompt.includes('login')) return 'prompt=login asks for a new sign-in';
  const now = Math.floor(srv.o.clock() / 1000);
  // max_age=0 is prompt=login (Core §3.1.2.1, errata): whole seconds would let a sign-in this second through.
  if (req.maxAge !== undefined && (req.maxAge === 0 || now - (sess.authTime ?? 0) > req.maxAge))
    return 'the sign-in is older than max_age';
  if (hintedSub !== undefined && hintedSub !== sess.user.id)
    return 'another user is signed in than id_token_hint names';
  return undefined;
}
