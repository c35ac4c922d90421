import type { Context } from 'koa';
import { toAuthError, type AuthError, type ErrorBody } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * The one way authkoa's routes answer: JSON bodies, `{"error","code"}` errors, and the defence headers
 * every auth and avatar response carries. The auth routes, the avatar route and the route middleware
 * all end here.
 */

/** Headers every auth and avatar response carries, redirects included (reference §3.1). */
export function setDefenceHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox; frame-ancestors 'none'");
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** JSON with a trailing newline and HTML-sensitive characters escaped, as the original writes it. */
export function writeJSON(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = JSON.stringify(body).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) + '\n';
}

/**
 * Writes `{"error","code"}` with the error's status. Anything that is not an AuthError becomes
 * a 500 with a fixed message, so stack traces and library messages never reach a client.
 */
export function writeError(ctx: Context, err: unknown): void {
  const e = toAuthError(err);
  writeJSON(ctx, e.status, { error: e.message, code: e.code } satisfies ErrorBody);
}

/**
 * A request's failure as an AuthError, logged when it is the server's (5xx, with its cause, which the
 * client never sees); 4xx are the client's business and stay out of the log.
 */
export function reportError(ctx: Context, err: unknown, log: Logger): AuthError {
  const e = toAuthError(err);
  if (e.status >= 500) {
    const cause = e.cause === undefined ? '' : `: ${(e.cause as Error)?.message ?? String(e.cause)}`;
    log.error(`${ctx.method} ${ctx.path}: ${e.message}${cause}`);
  }
  return e;
}
