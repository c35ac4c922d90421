import type { Context } from 'koa';
import { retryAfterSeconds } from '../../http/respond.js';
import { randomId } from '../../session/claims.js';
import type { Attempt } from '../../state/throttle.js';
import { safeEqual } from '../../util/safe-equal.js';
import { readForm, redirect, singleParams, text } from './http.js';
import { MAX_FORM } from './listener.js';
import type { LocalServer, OAuth2ServerClient, ResolvedServerOptions, ServerUser } from './options.js';
import { FIELDS, pageCSP } from './page.js';

/**
 * The local server's authorization endpoint: it checks the client's request, shows the login page,
 * signs the user in (session, CSRF token, Origin check, throttled password check) and, for a signed-in
 * user, sends the client its code.
 */

/** The sign-in session koa-session keeps (in memory, by a random cookie id). */
interface Sess {
  user?: ServerUser;
  /** When the user signed in, in seconds (the id_token's auth_time). */
  authTime?: number;
  csrf?: string;
  regenerate(): Promise<void>;
}
type SessionContext = Context & { session: Sess | null };

/** An authorization request whose client and redirect URI are known good. */
interface AuthorizationRequest {
  client: OAuth2ServerClient;
  redirectURI: string;
  challenge?: string;
  scope?: string;
  nonce?: string;
  state?: string;
}

/** Renders the login page with a status, a message and the user name to fill in again. */
type ShowPage = (status: number, error?: string, username?: string) => Promise<void>;

/** GET shows the page or, once signed in, redirects with a code; POST is the sign-in form. */
export async function authorize(srv: LocalServer, ctx: Context): Promise<void> {
  const req = authorizationRequest(srv, ctx);
  if (!req) return;
  const showPage = pageFor(srv, ctx, req);
  if (ctx.method === 'POST') return signIn(srv, ctx, showPage);
  const { user, authTime } = sessionOf(ctx);
  if (!user) return showPage(200);
  const { client, redirectURI, challenge, scope, nonce, state } = req;
  const code = srv.grants.issueCode({
    clientId: client.id,
    redirectURI,
    challenge,
    scope,
    nonce,
    authTime: authTime ?? Math.floor(srv.o.clock() / 1000),
    user,
  });
  redirect(ctx, redirectURI, { code, state, iss: issuerParam(srv) });
}

/**
 * The `iss` of authorization responses (RFC 9207) when the server is an OpenID provider: a client
 * talking to several servers can tell which one answered (mix-up attacks).
 */
function issuerParam(srv: LocalServer): string | undefined {
  return srv.o.signer ? srv.base : undefined;
}

/** Ends the sign-in session. */
export function signOut(ctx: Context): void {
  (ctx as SessionContext).session = null;
}

/** The request's client, redirect URI and PKCE challenge, checked; undefined once a refusal is answered. */
function authorizationRequest(srv: LocalServer, ctx: Context): AuthorizationRequest | undefined {
  if (ctx.method !== 'GET' && ctx.method !== 'POST') return refuse(ctx, 405, 'GET or POST only');
  const q = singleParams(new URLSearchParams(ctx.querystring));
  if (!q) return refuse(ctx, 400, 'a parameter is repeated');
  // Until client and redirect URI are known good, errors are shown here, never redirected (RFC 6749 §4.1.2.1).
  const client = srv.o.clients.get(q.client_id ?? '');
  if (!client) return refuse(ctx, 400, 'unknown client_id');
  const redirectURI = q.redirect_uri ?? '';
  if (!client.redirectURIs.includes(redirectURI))
    return refuse(ctx, 400, 'redirect_uri is not registered for this client');
  const back = (error: string, description: string) => {
    redirect(ctx, redirectURI, { error, error_description: description, state: q.state, iss: issuerParam(srv) });
    return undefined;
  };
  if (q.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
  // A public client has no secret to prove the code is its own: only PKCE binds the code to it.
  const pkceRequired = srv.o.requirePKCE || client.secret === undefined;
  if (!srv.grants.challengeAccepted(q.code_challenge, q.code_challenge_method, pkceRequired))
    return back('invalid_request', 'an S256 code_challenge is required');
  return { client, redirectURI, challenge: q.code_challenge, scope: q.scope, nonce: q.nonce, state: q.state };
}

function refuse(ctx: Context, status: number, message: string): undefined {
  text(ctx, status, message);
  return undefined;
}

function sessionOf(ctx: Context): Sess {
  return (ctx as SessionContext).session!;
}

/** The login page for this request; it gives the session a CSRF token when it has none. */
function pageFor(srv: LocalServer, ctx: Context, req: AuthorizationRequest): ShowPage {
  const sess = sessionOf(ctx);
  return async (status, error, username) => {
    sess.csrf ??= randomId();
    ctx.status = status;
    ctx.set('Content-Security-Policy', pageCSP(new URL(req.redirectURI).origin));
    ctx.set('X-Frame-Options', 'DENY');
    await srv.o.page(ctx, {
      action: `${srv.basePath}/authorize?${ctx.querystring}`,
      csrfToken: sess.csrf,
      clientId: req.client.id,
      error,
      username,
    });
  };
}

/** The posted sign-in form: a good password starts a fresh session and sends the browser back to authorize. */
async function signIn(srv: LocalServer, ctx: Context, showPage: ShowPage): Promise<void> {
  const sess = sessionOf(ctx);
  const form = await readForm(ctx, MAX_FORM);
  // A cross-site post carries no session cookie (SameSite=Lax) and no token; the Origin check is a second lock.
  if (!sess.csrf || !safeEqual(form[FIELDS.csrf] ?? '', sess.csrf) || foreignOrigin(srv.base, ctx)) {
    sess.csrf = randomId();
    return showPage(403, 'The sign-in form expired or did not come from this page. Please try again.');
  }
  const username = (form[FIELDS.username] ?? '').trim();
  const password = form[FIELDS.password] ?? '';
  if (!username || !password || username.length > 256 || password.length > 1024)
    return showPage(200, 'Enter your user name and password.', username.slice(0, 256));
  const verdict = await check(srv.o, ctx, username, password);
  if ('status' in verdict) return showPage(verdict.status, verdict.message, username);
  // A new session id at sign-in: an id planted before it (session fixation) is worth nothing.
  sess.user = verdict.user;
  sess.authTime = Math.floor(srv.o.clock() / 1000);
  sess.csrf = randomId();
  await sess.regenerate();
  srv.o.logger.info(`oauth2 server: ${JSON.stringify(verdict.user.id)} signed in`, {
    provider: 'server',
    userId: verdict.user.id,
  });
  // Post/redirect/get: the code is issued by a GET, so reloading never re-posts the password.
  ctx.status = 303;
  ctx.redirect(`${srv.basePath}/authorize?${ctx.querystring}`);
}

/**
 * An Origin other than the public URL's and the request's own. (Koa 3's ctx.origin echoes the Origin
 * header, so the request's own origin is built from protocol and host.)
 */
function foreignOrigin(base: string, ctx: Context): boolean {
  const origin = ctx.get('origin');
  return (
    origin !== '' && origin !== 'null' && origin !== new URL(base).origin && origin !== `${ctx.protocol}://${ctx.host}`
  );
}

type Verdict = { user: ServerUser } | { status: number; message: string };

/**
 * The password check under the throttle. The attempt is reserved before the checker runs (parallel
 * guesses cannot all pass one look at the count); a locked-out name is refused without a check and not
 * counted, so the lock-out ends on time. A checker that throws gives its reservation back and fails the request.
 */
async function check(o: ResolvedServerOptions, ctx: Context, username: string, password: string): Promise<Verdict> {
  const verdict = await checkNow(o, ctx, username, password);
  if ('status' in verdict)
    o.onSignInRefused?.(ctx, {
      userName: username,
      reason: REASONS[verdict.status] ?? 'bad_credentials',
      status: verdict.status,
    });
  return verdict;
}

/** The error code a refusal stands for, by the status the page answers with. */
const REASONS: Record<number, string> = {
  200: 'bad_credentials',
  429: 'too_many_attempts',
  503: 'state_store_unavailable',
};

async function checkNow(o: ResolvedServerOptions, ctx: Context, username: string, password: string): Promise<Verdict> {
  let attempt: Attempt | undefined;
  try {
    attempt = await o.throttle?.attempt(username, ctx.ip);
  } catch (err) {
    return unavailable(o, err);
  }
  if (attempt?.wait !== undefined) {
    ctx.set('Retry-After', retryAfterSeconds(attempt.wait));
    return { status: 429, message: 'Too many failed attempts. Wait a few minutes and try again.' };
  }
  let user: ServerUser | undefined;
  try {
    user = toUser(username, await o.checker(username, password));
  } catch (err) {
    await attempt?.abandoned().catch(() => {});
    throw err;
  }
  try {
    await (user ? attempt?.succeeded() : attempt?.failed());
  } catch (err) {
    return unavailable(o, err);
  }
  if (user) return { user };
  o.logger.info(`oauth2 server: sign-in refused for ${JSON.stringify(username)}`, {
    provider: 'server',
    code: 'bad_credentials',
    userName: username,
  });
  return { status: 200, message: 'Wrong user name or password.' };
}

function unavailable(o: ResolvedServerOptions, err: unknown): Verdict {
  o.logger.error(`oauth2 server: sign-in throttle failed: ${(err as Error)?.message ?? err}`);
  return { status: 503, message: 'Sign-in is unavailable right now. Please try again later.' };
}

/** The checker's answer as a user: `true` is the name itself; a profile needs a string id. */
function toUser(name: string, result: boolean | ServerUser): ServerUser | undefined {
  if (result === true) return { id: name, name };
  if (!result || typeof result !== 'object' || typeof result.id !== 'string' || !result.id) return undefined;
  const pick = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { id: result.id, name: pick(result.name), email: pick(result.email), picture: pick(result.picture) };
}
