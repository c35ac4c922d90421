import type { Context } from 'koa';
import { retryAfterSeconds } from '../../http/respond.js';
import { randomId } from '../../session/claims.js';
import type { Attempt } from '../../state/throttle.js';
import { safeEqual } from '../../util/safe-equal.js';
import type { LocalServer, ResolvedServerOptions, ServerUser } from './options.js';
import type { AuthorizationRequest } from './request.js';
import { FIELDS, pageCSP } from './page.js';

/**
 * The local server's login page and sign-in: the page for an authorization request, and the posted
 * form (session, CSRF token, Origin check, throttled password check).
 */

/** The sign-in session koa-session keeps (in memory, by a random cookie id). */
export interface Sess {
  user?: ServerUser;
  /** When the user signed in, in seconds (the id_token's auth_time). */
  authTime?: number;
  /** The sign-in session's id (OpenID's `sid`): in its id_tokens, and what a logout names. */
  sid?: string;
  /** The user signed in on the page just now: that sign-in answers `prompt=login` and `max_age`, once. */
  fresh?: boolean;
  csrf?: string;
  regenerate(): Promise<void>;
}
type SessionContext = Context & { session: Sess | null };

/** Renders the login page with a status, a message and the user name to fill in again. */
export type ShowPage = (status: number, error?: string, username?: string) => Promise<void>;

/** Ends the sign-in session. */
export function signOut(ctx: Context): void {
  (ctx as SessionContext).session = null;
}

/** The sign-in session of a request (koa-session's). */
export function sessionOf(ctx: Context): Sess {
  return (ctx as SessionContext).session!;
}

/** The login page for this request; it gives the session a CSRF token when it has none. */
export function pageFor(srv: LocalServer, ctx: Context, req: AuthorizationRequest): ShowPage {
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
      username: username ?? req.loginHint,
    });
  };
}

/** The posted sign-in form: a good password starts a fresh session and sends the browser back to authorize. */
export async function signIn(
  srv: LocalServer,
  ctx: Context,
  showPage: ShowPage,
  form: Record<string, string>,
): Promise<void> {
  const sess = sessionOf(ctx);
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
  // The same user signing in again (prompt=login, max_age) goes on with the session; another user ends it.
  const ended = sess.user?.id === verdict.user.id ? undefined : sess.sid;
  sess.sid = ended === undefined && sess.sid ? sess.sid : randomId();
  // A new session id at sign-in: an id planted before it (session fixation) is worth nothing.
  sess.user = verdict.user;
  sess.authTime = Math.floor(srv.o.clock() / 1000);
  sess.fresh = true;
  sess.csrf = randomId();
  await sess.regenerate();
  srv.o.logger.info(`oauth2 server: ${JSON.stringify(verdict.user.id)} signed in`, {
    provider: 'server',
    userId: verdict.user.id,
  });
  // Told in the background: the sign-in does not wait for the previous user's clients.
  if (ended) void srv.backchannel?.ended(ended);
  // Post/redirect/get: the code is issued by a GET, so reloading never re-posts the password.
  ctx.status = 303;
  ctx.redirect(`${srv.basePath}/authorize?${ctx.querystring}`);
}

/**
 * An Origin other than the public URL's and the request's own. (Koa 3's ctx.origin echoes the Origin
 * header, so the request's own origin is built from protocol and host.)
 */
export function foreignOrigin(base: string, ctx: Context): boolean {
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
