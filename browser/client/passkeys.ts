/**
 * The client's calls of a passkey provider's routes (`<authPath>/<name>/…`): register, log in, list, remove.
 * Each speaks the JSON of the route it names.
 */
import { isObject, type CallOptions } from './call.js';
import { expect, loginResult, type LoginResult } from './login.js';
import type { Passkey, PasskeyCreationOptions, PasskeyRequestOptions } from './schema.js';
import type { Transport } from './transport.js';
import { checkDevice, type Mediation, type WebAuthnDevice } from './webauthn.js';

/** Which passkey provider a call is for (its `name`; default `passkey`), and an abort signal. */
export interface PasskeyCallOptions extends CallOptions {
  provider?: string;
}

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
