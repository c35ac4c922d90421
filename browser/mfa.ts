/**
 * Deprecated: the second factor's page helpers of `authkoa/browser`, kept so existing pages go on working.
 * Each is one call of `authkoa/client` (`createAuthClient().mfa`, docs/client.md), the one client: same
 * requests, and every refusal an `AuthClientError` (`MfaError` is that class under its old name). New
 * code calls the client itself:
 *
 * | helper                      | `authkoa/client`                                  |
 * |-----------------------------|---------------------------------------------------|
 * | `mfaStatus()`               | `auth.mfa.status()` (a `{ state }`, see below)     |
 * | `setupTotp()`               | `auth.mfa.setupTotp()`                            |
 * | `confirmTotp(code)`         | `auth.mfa.confirmTotp(code)`                      |
 * | `verifyMfa(answer)`         | `auth.mfa.verify(answer)`                         |
 * | `verifyMfaWithPasskey()`    | `auth.mfa.verifyWithPasskey()`                    |
 * | `disableTotp()`             | `auth.mfa.disableTotp()`                          |
 * | `newRecoveryCodes()`        | `auth.mfa.newRecoveryCodes()`                     |
 *
 * The script-tag bundle `dist/browser/mfa.js` sets these functions on `window.authkoaMfa`
 * (`dist/browser/client.global.js` is the client's). Nothing here touches `window`, `document` or
 * `navigator` until a function is called, so the module can be imported in Node.
 */
import { AuthClientError } from './client/errors.js';
import type { MfaFactors, TotpSetup } from './client/schema.js';
import { helperClient, type HelperOptions } from './helper-client.js';

/**
 * Options of every function here: `base` is the auth routes' prefix (default `/auth`; the MFA routes are
 * under `<base>/mfa`), `xsrfCookie` / `xsrfHeader` the XSRF cookie and header, `signal` aborts.
 * @deprecated `createAuthClient({ authPath, xsrfCookieName, xsrfHeaderName })` from `authkoa/client`.
 */
export type MfaOptions = HelperOptions;

/**
 * The user JSON a finished login answers.
 * @deprecated `User` from `authkoa/client`.
 */
export interface MfaUser {
  id: string;
  name?: string;
  picture?: string;
  [key: string]: unknown;
}

/**
 * `GET <base>/mfa` with a login whose second step is pending, in the route's own JSON.
 * @deprecated `auth.mfa.status()` resolves to `{ state: 'mfa_required', factors, enrollRequired }`.
 */
export interface MfaPending {
  mfa_required: true;
  /** `totp`, `recovery`, `passkey`; empty when the user must set an app up first. */
  factors: string[];
  /** The user must set up an authenticator app ({@link setupTotp}, {@link confirmTotp}) to finish the login. */
  enroll_required?: true;
}

/**
 * `GET <base>/mfa` with a session: the user's second factors.
 * @deprecated `MfaFactors` from `authkoa/client`.
 */
export type MfaSummary = MfaFactors;

/** A new authenticator-app key, not active until {@link confirmTotp} (the document's `TotpSetup`). */
export type { TotpSetup };

/**
 * The helpers' old error class, now `AuthClientError` itself: `instanceof MfaError` and
 * `instanceof AuthClientError` are the same test, and `name` is `AuthClientError`.
 * @deprecated `AuthClientError` from `authkoa/client`.
 */
export const MfaError = AuthClientError;
/** @deprecated `AuthClientError` from `authkoa/client`. */
export type MfaError = AuthClientError;

/**
 * The second step pending for this browser's login (`MfaPending`), or the logged-in user's factors.
 * @deprecated `auth.mfa.status()`.
 */
export async function mfaStatus(opts: MfaOptions = {}): Promise<MfaPending | MfaSummary> {
  const status = await helperClient(opts).mfa.status({ signal: opts.signal });
  if (status.state === 'logged_in') return status.summary;
  const pending: MfaPending = { mfa_required: true, factors: status.factors };
  if (status.enrollRequired) pending.enroll_required = true;
  return pending;
}

/** Starts setting up an authenticator app: a new key, its URI and QR code. @deprecated `auth.mfa.setupTotp()`. */
export async function setupTotp(opts: MfaOptions = {}): Promise<TotpSetup> {
  return helperClient(opts).mfa.setupTotp({ signal: opts.signal });
}

/**
 * Turns the app on with a code it shows: the ten recovery codes (and `user` for an enrolling login).
 * @deprecated `auth.mfa.confirmTotp(code)`.
 */
export async function confirmTotp<U extends object = MfaUser>(
  code: string,
  opts: MfaOptions = {},
): Promise<{ recoveryCodes: string[]; user?: U }> {
  const confirmed = await helperClient(opts).mfa.confirmTotp(code, { signal: opts.signal });
  return confirmed as { recoveryCodes: string[]; user?: U };
}

/** The second step with `{ code }` or `{ recoveryCode }`: resolves to the user. @deprecated `mfa.verify(answer)`. */
export async function verifyMfa<U extends object = MfaUser>(
  answer: { code: string } | { recoveryCode: string },
  opts: MfaOptions = {},
): Promise<U> {
  return (await helperClient(opts).mfa.verify(answer, { signal: opts.signal })) as unknown as U;
}

/** Turns the authenticator app off; resolves to the factors left. @deprecated `auth.mfa.disableTotp()`. */
export async function disableTotp(opts: MfaOptions = {}): Promise<MfaSummary> {
  return helperClient(opts).mfa.disableTotp({ signal: opts.signal });
}

/** Ten new recovery codes in place of the old ones. @deprecated `auth.mfa.newRecoveryCodes()`. */
export async function newRecoveryCodes(opts: MfaOptions = {}): Promise<string[]> {
  return helperClient(opts).mfa.newRecoveryCodes({ signal: opts.signal });
}

/** The second step with one of the user's passkeys; resolves to the user. @deprecated `mfa.verifyWithPasskey()`. */
export async function verifyMfaWithPasskey<U extends object = MfaUser>(opts: MfaOptions = {}): Promise<U> {
  return (await helperClient(opts).mfa.verifyWithPasskey(opts.signal)) as unknown as U;
}
