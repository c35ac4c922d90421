/**
 * Sessions per device from a page, without dependencies: the logged-in user's sessions (one per login,
 * per browser), ending one of them, and ending all but this one. Each function speaks the JSON of one
 * route under `<base>/sessions` (default base `/auth`); see docs/sessions.md.
 *
 * ```ts
 * import { listSessions, endSession, endOtherSessions } from 'authkoa/browser';
 * const sessions = await listSessions();          // newest first; `current` marks this browser's
 * await endSession(sessions[1].sid);               // that browser is refused at its next refresh
 * await endOtherSessions();                        // every session but this one ends
 * ```
 *
 * The script-tag bundle `dist/browser/sessions.js` exposes the same functions as `window.authkoaSessions`.
 * Every request carries the XSRF token from `document.cookie`: these routes need a session, and a
 * cookie session needs the header. Nothing here touches `window` or `document` until a function is
 * called, so the module can be imported in Node.
 */
import type { Session } from './client/schema.js';
import { errorParts, jsonOrUndefined } from './json-body.js';
import { _headers, _url } from './mfa.js';

/** Options of every function here. */
export interface SessionsOptions {
  /** The auth routes' prefix; the session routes are under `<base>/sessions`. Default `/auth`. */
  base?: string;
  /** The cookie holding the XSRF token. Default `XSRF-TOKEN`. */
  xsrfCookie?: string;
  /** The request header the XSRF token is sent in. Default `X-XSRF-TOKEN`. */
  xsrfHeader?: string;
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** One of the user's sessions, as `GET <base>/sessions` lists it (the OpenAPI document's `Session`). */
export type SessionInfo = Session;

/**
 * A refused request: `message` is the server's `error`, `code` its `code` (`not_found` for a session
 * that is not the user's, `no_token`, `session_revoked`, `origin_mismatch`, `state_store_unavailable`, …),
 * `status` the HTTP status.
 */
export class SessionError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(message: string, code: string, status: number) {
    super(message);
    this.name = 'SessionError';
    this.code = code;
    this.status = status;
  }
}

/** The logged-in user's sessions, newest first; the one of this browser has `current: true`. */
export async function listSessions(opts: SessionsOptions = {}): Promise<SessionInfo[]> {
  const list = await request<SessionInfo[]>(opts, 'GET', '/sessions');
  if (!Array.isArray(list)) throw new SessionError(`invalid answer from ${_url(opts.base, '/sessions')}: not a list`, 'invalid_response', 200);
  return list;
}

/**
 * Ends one of the user's sessions: its browser is refused at its next token refresh (at once under
 * `strictRevocation`). Ending this browser's own session logs it out too (the server clears its
 * cookies). Rejects with a 404 SessionError (`not_found`) for a sid that is not one of the user's.
 */
export async function endSession(sid: string, opts: SessionsOptions = {}): Promise<void> {
  if (typeof sid !== 'string' || sid === '') throw new TypeError('endSession(sid): sid must be a session id string (the sid listSessions() gives)');
  await request<undefined>(opts, 'DELETE', '/sessions/' + encodeURIComponent(sid));
}

/** Ends every session of the user but this browser's ("log out everywhere else"). Resolves to the sid kept. */
export async function endOtherSessions(opts: SessionsOptions = {}): Promise<{ ended: 'others'; current: string }> {
  const answer = await request<{ ended: 'others'; current: string } | undefined>(opts, 'POST', '/sessions/revoke-others');
  if (!answer) throw new SessionError(`invalid answer from ${_url(opts.base, '/sessions/revoke-others')}: no JSON`, 'invalid_response', 200);
  return answer;
}

/** One request to `<base><path>`; a non-2xx answer rejects with a SessionError; an empty 2xx body resolves to undefined. */
async function request<T>(opts: SessionsOptions, method: string, path: string): Promise<T> {
  const cookies = typeof document !== 'undefined' ? document.cookie : '';
  const url = _url(opts.base, path);
  const res = await fetch(url, { method, credentials: 'same-origin', headers: _headers(cookies, opts, false), signal: opts.signal });
  const data = jsonOrUndefined(await res.text());
  if (!res.ok) throw _sessionError(res.status, data);
  return data as T;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers (exported with a leading underscore for the unit tests; not part of the API)

/** The SessionError for a non-2xx answer with body `data` (the server's `{ error, code }`). */
export function _sessionError(status: number, data: unknown): SessionError {
  const { message, code } = errorParts(status, data);
  return new SessionError(message, code, status);
}
