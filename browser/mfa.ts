/**
 * Two-step login (authkoa's `mfa` option) from a page, without dependencies: the second step of a
 * login that answered `{"mfa_required": true}`, and the user's own settings (turn an authenticator app
 * on or off, new recovery codes). Every function speaks the JSON of the routes under `<base>/mfa`
 * (default base `/auth`).
 *
 * ```ts
 * import { setupTotp, confirmTotp, verifyMfa } from 'authkoa/browser';
 * const { qr, secret } = await setupTotp();          // show qr (an <img> src) and secret
 * const { recoveryCodes } = await confirmTotp(code);  // show them once
 * // later, after a login answered {"mfa_required": true, "factors": [...]}:
 * const user = await verifyMfa({ code });            // or { recoveryCode }; sets the session cookies
 * ```
 *
 * The script-tag bundle `dist/browser/mfa.js` exposes the same functions as `window.authkoaMfa`.
 * Requests carry the XSRF token from `document.cookie` when there is one (the session routes check
 * it; the second step of a login has no session yet and needs none). Nothing here touches `window`,
 * `document` or `navigator` until a function is called, so the module can be imported in Node.
 */
import { errorParts, jsonOrUndefined } from './json-body.js';
import type { MfaFactors, TotpSetup } from './client/schema.js';
import { _credentialJSON, _readCookie, _requestOptions } from './passkey.js';

/** Options of every function here. */
export interface MfaOptions {
  /** The auth routes' prefix; the MFA routes are under `<base>/mfa`. Default `/auth`. */
  base?: string;
  /** The cookie holding the XSRF token. Default `XSRF-TOKEN`. */
  xsrfCookie?: string;
  /** The request header the XSRF token is sent in. Default `X-XSRF-TOKEN`. */
  xsrfHeader?: string;
  /** Aborts the requests (and the passkey prompt). */
  signal?: AbortSignal;
}

/** The user JSON a finished login answers. */
export interface MfaUser {
  id: string;
  name?: string;
  picture?: string;
  [key: string]: unknown;
}

/** `GET <base>/mfa` with a login whose second step is pending: what it may be answered with. */
export interface MfaPending {
  mfa_required: true;
  /** `totp`, `recovery`, `passkey`; empty when the user must set an app up first. */
  factors: string[];
  /** The user must set up an authenticator app ({@link setupTotp}, {@link confirmTotp}) to finish the login. */
  enroll_required?: true;
}

/** `GET <base>/mfa` with a session: the user's second factors (the OpenAPI document's `MfaFactors`). */
export type MfaSummary = MfaFactors;

/** A new authenticator-app key, not active until {@link confirmTotp} (the document's `TotpSetup`). */
export type { TotpSetup };

/**
 * A refused request: `message` is the server's `error`, `code` its `code` (`invalid_code`,
 * `reauth_required`, `rate_limited`, `mfa_session_expired`, …), `status` the HTTP status (0 when the
 * failure happened in the browser, e.g. `code: 'unsupported'` for passkeys). A user cancelling the
 * passkey prompt is not an MfaError: the browser's `NotAllowedError` DOMException propagates unchanged.
 */
export class MfaError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(message: string, code: string, status: number) {
    super(message);
    this.name = 'MfaError';
    this.code = code;
    this.status = status;
  }
}

/** The second step pending for this browser's login (`MfaPending`), or the logged-in user's factors (`MfaSummary`); 401 MfaError with neither. */
export function mfaStatus(opts: MfaOptions = {}): Promise<MfaPending | MfaSummary> {
  return request(opts, 'GET', '/mfa');
}

/** Starts setting up an authenticator app: a new key, its URI and QR code. Needs a fresh login (else `reauth_required`) or a login that must enrol. */
export function setupTotp(opts: MfaOptions = {}): Promise<TotpSetup> {
  return request(opts, 'POST', '/mfa/totp/setup', {});
}

/**
 * Turns the app set up by {@link setupTotp} on with a `code` it shows: resolves to the ten recovery
 * codes, to show once. A login that had to enrol is finished too: `user` is set, and so is the session.
 */
export function confirmTotp<U extends object = MfaUser>(code: string, opts: MfaOptions = {}): Promise<{ recoveryCodes: string[]; user?: U }> {
  if (typeof code !== 'string') return Promise.reject(new TypeError('confirmTotp(code): code must be a string (the 6 digits the app shows)'));
  return request(opts, 'POST', '/mfa/totp/confirm', { code: code.replace(/\s+/g, '') });
}

/**
 * The second step with a code from the app (`{ code }`) or a recovery code (`{ recoveryCode }`): finishes
 * a pending login, or re-confirms the session (step-up). Resolves to the user; the session cookies are set.
 */
export async function verifyMfa<U extends object = MfaUser>(answer: { code: string } | { recoveryCode: string }, opts: MfaOptions = {}): Promise<U> {
  return finished<U>(opts, await request<U | undefined>(opts, 'POST', '/mfa/verify', _verifyBody(answer)));
}

/** Turns the authenticator app off (its recovery codes go with it). Needs a fresh login. Resolves to the factors left. */
export function disableTotp(opts: MfaOptions = {}): Promise<MfaSummary> {
  return request(opts, 'DELETE', '/mfa/totp');
}

/** Ten new recovery codes in place of the old ones, to show once. Needs a fresh login and the app turned on. */
export async function newRecoveryCodes(opts: MfaOptions = {}): Promise<string[]> {
  return (await request<{ recoveryCodes: string[] }>(opts, 'POST', '/mfa/recovery-codes', {})).recoveryCodes;
}

/** The second step with one of the user's passkeys: the browser prompt, then the assertion posted. Resolves to the user. */
export async function verifyMfaWithPasskey<U extends object = MfaUser>(opts: MfaOptions = {}): Promise<U> {
  const container = typeof navigator !== 'undefined' ? navigator.credentials : undefined;
  if (!container || typeof PublicKeyCredential === 'undefined') throw new MfaError('passkeys are not available here (old browser or not a secure context)', 'unsupported', 0);
  const json = await request<PublicKeyCredentialRequestOptionsJSON>(opts, 'POST', '/mfa/passkey/options', {});
  const credential = (await container.get({ publicKey: _requestOptions(json), signal: opts.signal })) as PublicKeyCredential | null;
  if (!credential) throw new MfaError('the browser returned no credential', 'no_credential', 0);
  return finished<U>(opts, await request<U | undefined>(opts, 'POST', '/mfa/passkey', _credentialJSON(credential)));
}

// ---------------------------------------------------------------------------------------------
// Browser plumbing

/**
 * The user of a passed second step. A login with a `from` answers with a redirect instead, which the
 * page does not follow (it would fetch the next page's HTML): its session cookies are set all the same,
 * and the user is read from `<base>/user`.
 */
async function finished<U>(opts: MfaOptions, answer: U | undefined): Promise<U> {
  return answer ?? request<U>(opts, 'GET', '/user');
}

/** One JSON request to `<base><path>`; a non-2xx answer rejects with an MfaError; a redirect resolves to undefined. */
async function request<T>(opts: MfaOptions, method: string, path: string, body?: unknown): Promise<T> {
  const cookies = typeof document !== 'undefined' ? document.cookie : '';
  const headers = _headers(cookies, opts, body !== undefined);
  const url = _url(opts.base, path);
  const res = await fetch(url, { method, credentials: 'same-origin', redirect: 'manual', headers, body: body === undefined ? undefined : JSON.stringify(body), signal: opts.signal });
  if (res.type === 'opaqueredirect') return undefined as T;
  const data = jsonOrUndefined(await res.text());
  if (!res.ok) throw _errorFrom(res.status, data);
  if (data === undefined) throw new MfaError(`invalid JSON answer from ${url}`, 'invalid_response', res.status);
  return data as T;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers (exported with a leading underscore for the unit tests; not part of the API)

/** `<base><path>`, the base's trailing slashes dropped; the base must be a string. */
export function _url(base: string | undefined, path: string): string {
  if (base !== undefined && typeof base !== 'string') throw new TypeError('options.base must be a string, e.g. "/auth"');
  return (base ?? '/auth').replace(/\/+$/, '') + path;
}

/** The request headers: JSON, and the XSRF token from `cookies` (a `document.cookie` string) when it holds one. */
export function _headers(cookies: string, opts: Pick<MfaOptions, 'xsrfCookie' | 'xsrfHeader'>, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  const token = _readCookie(cookies, opts.xsrfCookie ?? 'XSRF-TOKEN');
  if (token !== undefined) headers[opts.xsrfHeader ?? 'X-XSRF-TOKEN'] = token;
  return headers;
}

/** The body of `POST <base>/mfa/verify` for an answer; a TypeError naming the argument for anything else. */
export function _verifyBody(answer: unknown): { code: string } | { recoveryCode: string } {
  const a = (answer && typeof answer === 'object' ? answer : {}) as { code?: unknown; recoveryCode?: unknown };
  if (typeof a.code === 'string' && a.recoveryCode === undefined) return { code: a.code.replace(/\s+/g, '') };
  if (typeof a.recoveryCode === 'string' && a.code === undefined) return { recoveryCode: a.recoveryCode.trim() };
  throw new TypeError('verifyMfa(answer): answer must be { code: string } (from the app) or { recoveryCode: string }');
}

/** The MfaError for a non-2xx answer with body `data` (the server's `{ error, code }`). */
export function _errorFrom(status: number, data: unknown): MfaError {
  const { message, code } = errorParts(status, data);
  return new MfaError(message, code, status);
}
