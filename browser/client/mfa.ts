/**
 * The client's calls of the second factor's routes (`<authPath>/mfa/…`, the `mfa` option): the pending step or
 * the factors, the authenticator app's set-up, the second step by code or passkey, removal, new recovery codes.
 * Each speaks the JSON of the route it names.
 */
import { isObject, type CallOptions } from './call.js';
import { expect, isUser, loginResult, type LoginResult } from './login.js';
import type { MfaFactors, PasskeyRequestOptions, RecoveryCodes, TotpConfirmed, TotpSetup, User } from './schema.js';
import type { Transport } from './transport.js';
import { checkDevice, type WebAuthnDevice } from './webauthn.js';

/** What `mfa.status()` finds: a login waiting for its second step, or a session and its factors. */
export type MfaStatus = Extract<LoginResult, { state: 'mfa_required' }> | { state: 'logged_in'; summary: MfaFactors };

export function mfaCalls(t: Transport, authPath: string, device: WebAuthnDevice, user: () => Promise<User>) {
  const path = (p: string) => `${authPath}/mfa${p}`;
  const call = async (method: string, p: string, body?: unknown, o: CallOptions = {}) =>
    t.request(method, path(p), { body, signal: o.signal });
  /** A second step passed answers the user, or a redirect to the kept `from` (then the user is read). */
  const passed = async (answer: Awaited<ReturnType<typeof call>>, p: string): Promise<User> =>
    answer.redirect !== undefined ? user() : expect(answer, t.url(path(p)), isUser, 'the user');
  return {
    /** A login's pending second step, or the logged-in user's factors; `no_token` with neither. */
    async status(o?: CallOptions): Promise<MfaStatus> {
      const answer = await call('GET', '', undefined, o);
      const result = isObject(answer.body) ? loginResult(answer, t.url(path(''))) : undefined;
      if (result?.state === 'mfa_required') return result;
      return {
        state: 'logged_in',
        summary: expect<MfaFactors>(
          answer,
          t.url(path('')),
          (b) => isObject(b) && typeof (b as MfaFactors).totp === 'boolean',
          'the factors',
        ),
      };
    },
    /** A new authenticator-app key: its secret, URI and QR code. Needs a fresh login (`reauth_required`) or a login sent to enrol. */
    async setupTotp(o?: CallOptions): Promise<TotpSetup> {
      return expect(
        await call('POST', '/totp/setup', {}, o),
        t.url(path('/totp/setup')),
        (b) => isObject(b) && typeof (b as TotpSetup).secret === 'string',
        'a key',
      );
    },
    /** Turns the app on with a first code: the ten recovery codes, to show once; a login sent to enrol is finished too (`user`). */
    async confirmTotp(code: string, o?: CallOptions): Promise<TotpConfirmed> {
      if (typeof code !== 'string')
        throw new TypeError('mfa.confirmTotp(code): code must be a string (the 6 digits the app shows)');
      return expect(
        await call('POST', '/totp/confirm', { code: code.replace(/\s+/g, '') }, o),
        t.url(path('/totp/confirm')),
        (b) => isObject(b) && Array.isArray((b as { recoveryCodes?: unknown }).recoveryCodes),
        'recovery codes',
      );
    },
    /** The second step (or a step-up) with `{ code }` from the app or `{ recoveryCode }`: resolves to the user; the session is set. */
    async verify(answer: { code: string } | { recoveryCode: string }, o?: CallOptions): Promise<User> {
      return passed(await call('POST', '/verify', verifyBody(answer), o), '/verify');
    },
    /** The second step with one of the user's passkeys. */
    async verifyWithPasskey(signal?: AbortSignal): Promise<User> {
      checkDevice(device);
      const options = await call('POST', '/passkey/options', {}, { signal });
      const assertion = await device.get(
        expect<PasskeyRequestOptions>(options, t.url(path('/passkey/options')), isObject, 'request options'),
        signal,
      );
      return passed(await call('POST', '/passkey', assertion, { signal }), '/passkey');
    },
    /** Turns the app off (its recovery codes go with it); needs a fresh login. Resolves to the factors left. */
    async disableTotp(o?: CallOptions): Promise<MfaFactors> {
      return expect(await call('DELETE', '/totp', undefined, o), t.url(path('/totp')), isObject, 'the factors');
    },
    /** Ten new recovery codes replacing the old ones; needs a fresh login and the app on. */
    async newRecoveryCodes(o?: CallOptions): Promise<string[]> {
      return expect<RecoveryCodes>(
        await call('POST', '/recovery-codes', {}, o),
        t.url(path('/recovery-codes')),
        (b) => isObject(b) && Array.isArray((b as { recoveryCodes?: unknown }).recoveryCodes),
        'recovery codes',
      ).recoveryCodes;
    },
  };
}

function verifyBody(answer: unknown): { code: string } | { recoveryCode: string } {
  const a = (answer && typeof answer === 'object' ? answer : {}) as { code?: unknown; recoveryCode?: unknown };
  if (typeof a.code === 'string' && a.recoveryCode === undefined) return { code: a.code.replace(/\s+/g, '') };
  if (typeof a.recoveryCode === 'string' && a.code === undefined) return { recoveryCode: a.recoveryCode.trim() };
  throw new TypeError('mfa.verify(answer): answer must be { code: string } (from the app) or { recoveryCode: string }');
}
