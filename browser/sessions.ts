/**
 * Deprecated: the sessions-per-device page helpers of `authkoa/browser`, kept so existing pages go on
 * working. Each is one call of `authkoa/client` (`createAuthClient().sessions`, docs/client.md), the one
 * client: same requests, and every refusal an `AuthClientError` (`SessionError` is that class under its
 * old name). New code calls the client itself:
 *
 * | helper                | `authkoa/client`          |
 * |-----------------------|---------------------------|
 * | `listSessions()`      | `auth.sessions.list()`     |
 * | `endSession(sid)`     | `auth.sessions.end(sid)`   |
 * | `endOtherSessions()`  | `auth.sessions.endOthers()`|
 *
 * The script-tag bundle `dist/browser/sessions.js` sets these functions on `window.authkoaSessions`
 * (`dist/browser/client.global.js` is the client's). Nothing here touches `window` or `document` until a
 * function is called, so the module can be imported in Node.
 */
import { AuthClientError } from './client/errors.js';
import type { Session } from './client/schema.js';
import { helperClient, type HelperOptions } from './helper-client.js';

/**
 * Options of every function here: `base` is the auth routes' prefix (default `/auth`; the session routes
 * are under `<base>/sessions`), `xsrfCookie` / `xsrfHeader` the XSRF cookie and header, `signal` aborts.
 * @deprecated `createAuthClient({ authPath, xsrfCookieName, xsrfHeaderName })` from `authkoa/client`.
 */
export type SessionsOptions = HelperOptions;

/**
 * One of the user's sessions, as `GET <base>/sessions` lists it.
 * @deprecated `Session` from `authkoa/client`.
 */
export type SessionInfo = Session;

/**
 * The helpers' old error class, now `AuthClientError` itself: `instanceof SessionError` and
 * `instanceof AuthClientError` are the same test, and `name` is `AuthClientError`.
 * @deprecated `AuthClientError` from `authkoa/client`.
 */
export const SessionError = AuthClientError;
/** @deprecated `AuthClientError` from `authkoa/client`. */
export type SessionError = AuthClientError;

/** The logged-in user's sessions, newest first; this browser's is `current`. @deprecated `auth.sessions.list()`. */
export async function listSessions(opts: SessionsOptions = {}): Promise<SessionInfo[]> {
  return helperClient(opts).sessions.list({ signal: opts.signal });
}

/** Ends one of the user's sessions (`not_found` for a sid that is not theirs). @deprecated `auth.sessions.end(sid)`. */
export async function endSession(sid: string, opts: SessionsOptions = {}): Promise<void> {
  return helperClient(opts).sessions.end(sid, { signal: opts.signal });
}

/** Ends every session of the user but this browser's; resolves to the sid kept. @deprecated `sessions.endOthers()`. */
export async function endOtherSessions(opts: SessionsOptions = {}): Promise<{ ended: 'others'; current: string }> {
  return helperClient(opts).sessions.endOthers({ signal: opts.signal });
}
