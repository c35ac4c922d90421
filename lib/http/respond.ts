import type { Context } from 'koa';
import { AuthError, emitOnApp, toAuthError, type ErrorBody } from '../errors.js';
import { consoleLogger, type Logger } from '../logger.js';

/**
 * The one way authkoa's routes answer: JSON bodies, `{"error","code"}` errors, and the defence headers
 * every auth and avatar response carries. The auth routes, the avatar route and the route middleware
 * all end here.
 */

/**
 * Headers every auth and avatar response carries, redirects included: a body is never run as a page
 * (no sources, sandboxed, not framed) and never sniffed into another type.
 */
export function setDefenceHeaders(ctx: Context): void {
  ctx.set('Content-Security-Policy', "default-src 'none'; sandbox; frame-ancestors 'none'");
  ctx.set('X-Content-Type-Options', 'nosniff');
}

/** JSON with a trailing newline and HTML-sensitive characters escaped, as the original writes it. */
export function writeJSON(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json; charset=utf-8';
  ctx.body =
    JSON.stringify(body).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) +
    '\n';
}

/**
 * Writes `{"error","code"}` with the error's status. Anything that is not an AuthError becomes
 * a 500 with a fixed message, so stack traces and library messages never reach a client.
 */
export function writeError(ctx: Context, err: unknown): void {
  const e = toAuthError(err);
  writeJSON(ctx, e.status, { error: e.message, code: e.code } satisfies ErrorBody);
}

/** Where a request marks the provider whose route it is on: a log record about it names the provider. */
const PROVIDER = Symbol('authkoa.provider');

/** Marks `ctx` as a request to `provider`'s route (the auth router, once it found the provider). */
export function onProviderRoute(ctx: Context, provider: string): void {
  (ctx as Context & { [PROVIDER]?: string })[PROVIDER] = provider;
}

/** The provider whose route `ctx` is on (onProviderRoute), for the fields of what is logged about it. */
export function providerOf(ctx: Context): string | undefined {
  return (ctx as Context & { [PROVIDER]?: string })[PROVIDER];
}

/**
 * A request's failure as an AuthError. A 5xx is the server's: it is logged (with its cause, which the
 * client never sees) and emitted on the Koa app (see emitError). 4xx are expected refusals, the
 * client's business, and stay quiet.
 */
export function reportError(ctx: Context, err: unknown, log: Logger): AuthError {
  const e = toAuthError(err);
  if (e.status >= 500) {
    const cause = e.cause === undefined ? '' : `: ${causeText(e.cause)}`;
    // Without a logger of the app's, Koa's handler of the emitted error prints it: once, not twice.
    if (log !== consoleLogger) {
      const provider = providerOf(ctx);
      const where = { method: ctx.method, path: ctx.path };
      const fields = { ...(provider !== undefined && { provider }), status: e.status, code: e.code, ...where };
      log.error(`${ctx.method} ${ctx.path}: ${e.message}${cause}`, fields);
    }
    emitError(ctx, e);
  }
  return e;
}

/**
 * Koa's convention for an unexpected error: `app.emit('error', err, ctx)`, which Koa prints unless the
 * app listens itself or is `silent`: the app's own error reporting, and what prints a request's failure
 * when the app gave no logger. The error emitted is the original one (the
 * checker's, the store's) when the AuthError wraps one, else the AuthError itself: Koa's default
 * handler throws on anything that is not an Error. The answer is already written (or about to be) by
 * authkoa, so Koa's own error response never runs; a listener that throws must not change that.
 */
export function emitError(ctx: Context, e: AuthError): void {
  emitOnApp(ctx, originalError(e));
}

/** The first error in `e`'s cause chain that is not an AuthError (what the foreign code threw), else `e`. */
function originalError(e: AuthError): Error {
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur instanceof AuthError; depth++) cur = cur.cause;
  return isError(cur) && !(cur instanceof AuthError) ? cur : e;
}

/** Koa's own test (cross-realm errors included): what its default handler accepts. */
function isError(v: unknown): v is Error {
  return v instanceof Error || Object.prototype.toString.call(v) === '[object Error]';
}

/**
 * Sets `Retry-After` for a wait of `waitMs` (whole seconds, at least one: `0` would invite an immediate
 * retry) and returns the 429 `rate_limited` error to throw. Every limit and lock-out answers through it.
 */
export function rateLimited(ctx: Context, waitMs: number, message: string): AuthError {
  ctx.set('Retry-After', retryAfterSeconds(waitMs));
  return new AuthError('rate_limited', message);
}

/** A wait in ms as a `Retry-After` value. */
export function retryAfterSeconds(waitMs: number): string {
  return String(Math.max(1, Math.ceil(waitMs / 1000)));
}

/** A cause's message, or the value itself as text when it has none (a string or a number was thrown). */
function causeText(cause: unknown): string {
  return (cause as Error | null)?.message ?? String(cause);
}
