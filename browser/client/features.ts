/**
 * The client's calls for what a configuration adds to the core routes: a passkey provider's routes, the
 * second factor (`mfa`) and the user's sessions per device. Each speaks the JSON of the route it names.
 */
import { expect, isUser, loginResult, type LoginResult } from './login.js';
import type {
  MfaFactors,
  Passkey,
  PasskeyCreationOptions,
  PasskeyRequestOptions,
  RecoveryCodes,
  Session,
  TotpConfirmed,
  TotpSetup,
  User,
} from './schema.js';
import type { Transport } from './transport.js';
import { checkDevice, type Mediation, type WebAuthnDevice } from './webauthn.js';

/** What `mfa.status()` finds: a login waiting for its second step, or a session and its factors. */
export type MfaStatus = Extract<LoginResult, { state: 'mfa_required' }> | { state: 'logged_in'; summary: MfaFactors };

/** What every second-factor and session call may take: a signal that aborts its request. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Which passkey provider a call is for (its `name`; default `passkey`), and an abort signal. */
export interface PasskeyCallOptions extends CallOptions {
  provider?: string;
}

const isObject = (b: unknown) => !!b && typeof b === 'object' && !Array.isArray(b);

export function passkeyCalls(t: Transport, authPath: string, device: WebAuthnDevice) {
  const base = (o: PasskeyCallOptions = {}) => `${authPath}/${encodeURIComponent(o.provider ?? 'passkey')}`;
  return {
    /** Adds a passkey to the logged-in user's account: the options, the browser's prompt, the attestation. Resolves to its id. */
    async register(o: PasskeyCallOptions = {}): Promise<{ id: string }> {
      checkDevice(device);
      const options = await t.request('POST', `${base(o)}/register/options`, { body: {}, signal: o.signal });
      const credential = await device.create(
        expect<PasskeyCreationOptions>(options, t.url(`${base(o)}/register/options`), isObject, 'creation options'),
        o.signal,
      );
      const created = await t.request('POST', `${base(o)}/register`, { body: credential, signal: o.signal });
      return expect(
        created,
        t.url(`${base(o)}/register`),
        (b) => isObject(b) && typeof (b as { id?: unknown }).id === 'string',
        'the new passkey id',
      );
    },
    /** Logs in with a passkey; `site` is the audience, `mediation: 'conditional'` offers passkeys in the autofill. */
    async login(o: PasskeyCallOptions & { site?: string; mediation?: Mediation } = {}): Promise<LoginResult> {
      checkDevice(device);
      const options = await t.request('POST', `${base(o)}/login/options`, {
        body: o.site === undefined ? {} : { site: o.site },
        signal: o.signal,
      });
      const assertion = await device.get(
        expect<PasskeyRequestOptions>(options, t.url(`${base(o)}/login/options`), isObject, 'request options'),
        o.signal,
        o.mediation,
      );
      return loginResult(
        await t.request('POST', `${base(o)}/login`, { body: assertion, signal: o.signal }),
        t.url(`${base(o)}/login`),
      );
    },
    /** The logged-in user's passkeys. */
    async list(o: PasskeyCallOptions = {}): Promise<Passkey[]> {
      return expect(
        await t.request('GET', `${base(o)}/list`, { signal: o.signal }),
        t.url(`${base(o)}/list`),
        Array.isArray,
        'a list',
      );
    },
    /** Removes one of the logged-in user's passkeys (`not_found` for one that is not theirs). */
    async remove(id: string, o: PasskeyCallOptions = {}): Promise<void> {
      if (typeof id !== 'string' || id === '')
        throw new TypeError('passkeys.remove(id): id must be a passkey id string (as passkeys.list() gives)');
      await t.request('DELETE', `${base(o)}/${encodeURIComponent(id)}`, { signal: o.signal });
    },
  };
}

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

export function sessionCalls(t: Transport, authPath: string) {
  const path = `${authPath}/sessions`;
  return {
    /** The user's sessions, newest first; this client's has `current: true`. */
    async list(o: CallOptions = {}): Promise<Session[]> {
      return expect(await t.request('GET', path, { signal: o.signal }), t.url(path), Array.isArray, 'a list');
    },
    /** Ends one session (`not_found` for a sid that is not the user's); ending this client's own logs it out. */
    async end(sid: string, o: CallOptions = {}): Promise<void> {
      if (typeof sid !== 'string' || sid === '')
        throw new TypeError('sessions.end(sid): sid must be a session id string (as sessions.list() gives)');
      await t.request('DELETE', `${path}/${encodeURIComponent(sid)}`, { signal: o.signal });
    },
    /** Ends every session of the user but this one. Resolves to the sid kept. */
    async endOthers(o: CallOptions = {}): Promise<{ ended: 'others'; current: string }> {
      return expect(
        await t.request('POST', `${path}/revoke-others`, { signal: o.signal }),
        t.url(`${path}/revoke-others`),
        isObject,
        'the sessions ended',
      );
    },
  };
}
