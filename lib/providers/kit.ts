/**
 * The pure helpers of a provider kind: they need nothing of an instance and are the same for every one, so
 * a kind imports them rather than being handed them in ProviderDeps. The main entry exports them for kinds written
 * outside the package; the built-in kinds import them from here.
 */
import type { Context } from 'koa';
import { sessionFlag } from '../session/login.js';
import { readCookie as cookieOfHeader } from '../session/transport.js';

// As the service uses them: readParams(ctx, limit?) reads a login's parameters (query, JSON or form body,
// 413/400 AuthErrors), sessionFlag(params) reads their `session`/`sess` flag (undefined when absent), and
// randomId() is 40 hex characters of crypto randomness (states, nonces, one-time codes, token ids).
export { readParams } from '../http/body.js';
export { sessionFlag } from '../session/login.js';
export { randomId } from '../session/claims.js';

/** The `session`/`sess` flag of a login request's query: any value but "0" asks for session-only cookies. */
export function sessionOnly(ctx: Context): boolean {
  return sessionFlag(ctx.query) ?? false;
}

/** The value of the request cookie `name`, '' when it is absent (a kind's own cookie, e.g. a handshake). */
export function readCookie(ctx: Context, name: string): string {
  return cookieOfHeader(ctx.get('cookie'), name);
}
