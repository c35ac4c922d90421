/**
 * Deprecated: the passkey page helpers of `authkoa/browser`, kept so existing pages go on working. Each is
 * one call of `authkoa/client` (`createAuthClient().passkeys`, docs/client.md), the one client: same
 * requests, the same WebAuthn conversions, and every refusal an `AuthClientError` (`PasskeyError` is that
 * class under its old name). New code calls the client itself:
 *
 * | helper                          | `authkoa/client`                                  |
 * |---------------------------------|---------------------------------------------------|
 * | `registerPasskey()`             | `auth.passkeys.register()`                        |
 * | `loginWithPasskey()`            | `auth.passkeys.login()` (a `LoginResult`)         |
 *
 * The script-tag bundle `dist/browser/passkey.js` sets both on `window.authkoaPasskey`
 * (`dist/browser/client.global.js` is the client's). Nothing here touches `window`, `document` or
 * `navigator` until a function is called, so the module can be imported in Node.
 */
import type { AuthClient } from './client.js';
import { AuthClientError } from './client/errors.js';
import { clientFor, helperBase, type HelperOptions } from './helper-client.js';

/**
 * Options of {@link registerPasskey}: `base` is the provider's base path (default `/auth/passkey`).
 * @deprecated `createAuthClient(...).passkeys.register({ provider })` from `authkoa/client`.
 */
export type RegisterPasskeyOptions = HelperOptions;

/**
 * Options of {@link loginWithPasskey}: `base` as above, `site` the audience, `mediation` how the browser
 * asks (`'conditional'`: in the autofill of an `<input autocomplete="username webauthn">`).
 * @deprecated `createAuthClient(...).passkeys.login({ provider, site, mediation })` from `authkoa/client`.
 */
export interface LoginWithPasskeyOptions extends HelperOptions {
  site?: string;
  mediation?: 'conditional' | 'optional' | 'required' | 'silent';
}

/**
 * The user JSON the provider answers a successful login with.
 * @deprecated `User` from `authkoa/client`.
 */
export interface PasskeyUser {
  id: string;
  name?: string;
  picture?: string;
  [key: string]: unknown;
}

/**
 * The helpers' old error class, now `AuthClientError` itself: `instanceof PasskeyError` and
 * `instanceof AuthClientError` are the same test, and `name` is `AuthClientError`. A user cancelling the
 * browser prompt still gets the browser's `NotAllowedError` unchanged.
 * @deprecated `AuthClientError` from `authkoa/client`.
 */
export const PasskeyError = AuthClientError;
/** @deprecated `AuthClientError` from `authkoa/client`. */
export type PasskeyError = AuthClientError;

/** The client for a provider's base path (`/auth/passkey`: the auth prefix `/auth`, the provider `passkey`). */
function passkeyClient(opts: HelperOptions): { client: AuthClient; provider?: string } {
  const { origin, path } = helperBase(opts, '/auth/passkey');
  const cut = path.lastIndexOf('/');
  return { client: clientFor(origin, path.slice(0, cut), opts), provider: path.slice(cut + 1) || undefined };
}

/** Adds a passkey to the logged-in user's account; resolves to `{ id }`. @deprecated `auth.passkeys.register()`. */
export async function registerPasskey(opts: RegisterPasskeyOptions = {}): Promise<{ id: string }> {
  const { client, provider } = passkeyClient(opts);
  return client.passkeys.register({ provider, signal: opts.signal });
}

/**
 * Logs in with a passkey; resolves to the user JSON (the route's own JSON when the login is not finished,
 * e.g. `{ mfa_required, factors }`). @deprecated `auth.passkeys.login()`, which resolves to a `LoginResult`.
 */
export async function loginWithPasskey<U extends object = PasskeyUser>(opts: LoginWithPasskeyOptions = {}): Promise<U> {
  const { client, provider } = passkeyClient(opts);
  const { site, mediation, signal } = opts;
  const result = await client.passkeys.login({ provider, site, mediation, signal });
  switch (result.state) {
    case 'logged_in':
      return result.user as unknown as U;
    case 'mfa_required': {
      // The route's own JSON, as this helper resolved to before it wrapped the client.
      const pending = { mfa_required: true, factors: result.factors };
      return (result.enrollRequired ? { ...pending, enroll_required: true } : pending) as U;
    }
    case 'pending':
      return result.answer as U;
    case 'redirected':
      return (await client.user()) as unknown as U;
  }
}
