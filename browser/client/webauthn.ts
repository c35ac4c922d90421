/**
 * The authenticator the passkey calls use: the browser's (`navigator.credentials`) by default, or any
 * object with the same two calls in JSON form (a test's software authenticator, a native bridge), which is
 * how the passkey routes work outside a browser.
 */
import { AuthClientError } from './errors.js';
import type { PasskeyCreationOptions, PasskeyRequestOptions } from './schema.js';
import { creationOptions, credentialJSON, requestOptions } from './webauthn-json.js';

/** How the browser asks (`conditional`: the passkeys are offered in the autofill of a username field). */
export type Mediation = 'conditional' | 'optional' | 'required' | 'silent';

/**
 * Makes and uses passkeys, in the JSON the server speaks (WebAuthn's `…JSON` types, binary as base64url;
 * their types come from the OpenAPI document, not the DOM library, so a Node program's types check too).
 */
export interface WebAuthnDevice {
  /** A new credential for the creation options: the RegistrationResponseJSON. */
  create(options: PasskeyCreationOptions, signal?: AbortSignal): Promise<unknown>;
  /** An assertion for the request options: the AuthenticationResponseJSON. */
  get(options: PasskeyRequestOptions, signal?: AbortSignal, mediation?: Mediation): Promise<unknown>;
}

/** The browser's authenticator. A user who cancels the prompt gets the browser's `NotAllowedError` unchanged. */
export const browserWebAuthn: WebAuthnDevice = {
  async create(options, signal) {
    const credentials = container();
    const credential = await credentials.create({
      publicKey: creationOptions(options as unknown as PublicKeyCredentialCreationOptionsJSON),
      signal,
    });
    if (!credential) throw new AuthClientError('the browser created no credential', 'no_credential', 0);
    return credentialJSON(credential as PublicKeyCredential);
  },
  async get(options, signal, mediation) {
    const credentials = container();
    const request: CredentialRequestOptions = { publicKey: requestOptions(options), signal };
    if (mediation) request.mediation = mediation;
    const credential = await credentials.get(request);
    if (!credential) throw new AuthClientError('the browser returned no credential', 'no_credential', 0);
    return credentialJSON(credential as PublicKeyCredential);
  },
};

/**
 * Refuses with `unsupported` now when `device` is the browser's and there is no WebAuthn here: a passkey
 * call checks it before its first request, so the server spends no challenge on a browser that cannot answer.
 */
export function checkDevice(device: WebAuthnDevice): void {
  if (device === browserWebAuthn) container();
}

function container(): CredentialsContainer {
  // Missing in old browsers, outside secure contexts (plain http other than localhost) and in Node.
  const found = typeof navigator !== 'undefined' ? navigator.credentials : undefined;
  if (!found || typeof PublicKeyCredential === 'undefined') {
    throw new AuthClientError(
      'passkeys are not available here (no WebAuthn: an old browser, not a secure context, or no browser; pass `webauthn`)',
      'unsupported',
      0,
    );
  }
  return found;
}
