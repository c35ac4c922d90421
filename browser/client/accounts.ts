/**
 * The client's calls for a `password` provider's accounts (the server's `accounts` option, docs/accounts.md):
 * sign-up, the mailed links redeemed by a script, a reset, and the owner's changes. Logging in with a password
 * is the client's `login(provider, { user, passwd })`, the address in `user`: the route has `direct`'s shape.
 */
import { AuthClientError } from './errors.js';
import { loginResult, type LoginResult } from './login.js';
import type { CallOptions } from './call.js';
import type { Transport } from './transport.js';

/** Which password provider a call is for (its `name`; default `local`), and an abort signal. */
export interface AccountCallOptions extends CallOptions {
  provider?: string;
}

/** What `accounts.signup()` sends: the address, the password, and the name shown for the user if any. */
export interface SignupInput {
  email: string;
  password: string;
  name?: string;
  /** Where the browser goes once the mailed link's page confirmed the address (default the site; redirect policy). */
  from?: string;
}

/**
 * The answer of sign-up, reset and a new address: a message is on its way. It is the same whether or not the
 * address has an account, so it says nothing of one.
 */
export interface CheckEmail {
  status: 'check_email';
}

/**
 * What redeeming a mailed link (`accounts.confirm()`) did: a sign-up's link logs in (or asks the second step),
 * like any login; a new address's link applies the change and logs nobody in.
 */
export type ConfirmResult = LoginResult | { state: 'email_changed'; email: string };

const isObject = (b: unknown): b is Record<string, unknown> => !!b && typeof b === 'object' && !Array.isArray(b);

export function accountCalls(t: Transport, authPath: string) {
  const path = (o: AccountCallOptions, route: string) => {
    const name = o.provider ?? 'local';
    if (typeof name !== 'string' || !/^[^/?#]+$/.test(name))
      throw new TypeError("accounts: provider must be a password provider's name, as providers() lists it");
    return `${authPath}/${encodeURIComponent(name)}/${route}`;
  };
  /** The call's answer, which must be `{ status: <status> }`; else the client's `invalid_response`. */
  const statusCall = async <S extends string>(
    status: S,
    method: string,
    route: string,
    body: unknown,
    o: AccountCallOptions,
  ): Promise<{ status: S }> => {
    const p = path(o, route);
    const answer = await t.request(method, p, { body, signal: o.signal });
    if (!isObject(answer.body) || answer.body.status !== status)
      throw new AuthClientError(
        `${t.url(p)} answered something else than ${status}`,
        'invalid_response',
        answer.status,
      );
    return { status };
  };
  return {
    /**
     * Signs up: resolves `{ status: 'check_email' }` for every well-formed request (a confirmation link, or a
     * notice to an address that has an account). `invalid_email`, `weak_password`, `signup_disabled`, `rate_limited`.
     */
    async signup(input: SignupInput, o: AccountCallOptions = {}): Promise<CheckEmail> {
      const { email, password, name, from } = (isObject(input) ? input : {}) as Partial<SignupInput>;
      const optional = (v: unknown) => v === undefined || typeof v === 'string';
      if (typeof email !== 'string' || typeof password !== 'string' || !optional(name) || !optional(from))
        throw new TypeError(
          'accounts.signup(input): input must be { email: string, password: string, name?: string, from?: string }',
        );
      const body = { email, password, ...(name !== undefined && { name }), ...(from !== undefined && { from }) };
      return statusCall('check_email', 'POST', 'signup', body, o);
    },
    /**
     * Redeems a mailed confirmation link's token (the `token` of its URL) once: a sign-up's logs in, a new
     * address's applies the change. `confirmation_used`, `confirmation_expired`, `confirmation_invalid`.
     */
    async confirm(token: string, o: AccountCallOptions = {}): Promise<ConfirmResult> {
      if (typeof token !== 'string' || token === '')
        throw new TypeError("accounts.confirm(token): token must be the link's token string");
      const p = path(o, 'confirm');
      const answer = await t.request('POST', p, { body: { token }, signal: o.signal });
      const b = answer.body;
      if (isObject(b) && b.status === 'email_changed' && typeof b.email === 'string')
        return { state: 'email_changed', email: b.email };
      return loginResult(answer, t.url(p));
    },
    /** Asks for a reset link: `{ status: 'check_email' }` whether or not the address has an account. */
    async reset(email: string, o: AccountCallOptions = {}): Promise<CheckEmail> {
      if (typeof email !== 'string') throw new TypeError('accounts.reset(email): email must be a string');
      return statusCall('check_email', 'POST', 'reset', { email }, o);
    },
    /**
     * Sets a new password with a reset link's token. Logs nobody in, and every session of the account ends:
     * log in with the new password. A `weak_password` leaves the link unspent.
     */
    async resetConfirm(
      token: string,
      password: string,
      o: AccountCallOptions = {},
    ): Promise<{ status: 'password_reset' }> {
      if (typeof token !== 'string' || token === '' || typeof password !== 'string')
        throw new TypeError(
          "accounts.resetConfirm(token, password): the link's token and the new password, as strings",
        );
      return statusCall('password_reset', 'POST', 'reset/confirm', { token, password }, o);
    },
    /** A new password for the logged-in account; needs a fresh login (`reauth_required`). Its other sessions end. */
    async changePassword(
      current: string,
      password: string,
      o: AccountCallOptions = {},
    ): Promise<{ status: 'password_changed' }> {
      if (typeof current !== 'string' || typeof password !== 'string')
        throw new TypeError('accounts.changePassword(current, password): both passwords as strings');
      return statusCall('password_changed', 'POST', 'password', { current, password }, o);
    },
    /** A new address for the logged-in account (fresh login): it applies once the link sent there is redeemed. */
    async changeEmail(email: string, o: AccountCallOptions = {}): Promise<CheckEmail> {
      if (typeof email !== 'string') throw new TypeError('accounts.changeEmail(email): email must be a string');
      return statusCall('check_email', 'POST', 'email', { email }, o);
    },
    /** Deletes the logged-in account (fresh login): every session ends, this client's cookies are cleared. */
    async delete(o: AccountCallOptions = {}): Promise<{ status: 'account_deleted' }> {
      return statusCall('account_deleted', 'DELETE', 'account', undefined, o);
    },
  };
}
