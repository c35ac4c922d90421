/**
 * Passkey (WebAuthn) sign-up and sign-in against authkoa's `passkey` provider, without
 * dependencies. Both functions speak the provider's JSON protocol (default base
 * `/auth/passkey`): fetch the options, run the browser prompt, post the credential back.
 *
 * ```ts
 * import { registerPasskey, loginWithPasskey } from 'authkoa/browser';
 * await registerPasskey();                 // the user must be logged in already
 * const user = await loginWithPasskey();   // sets the session cookies
 * ```
 *
 * The script-tag bundle `dist/browser/passkey.js` exposes the same two functions as
 * `window.authkoaPasskey`. Nothing here touches `window`, `document` or `navigator` until a
 * function is called, so the module can be imported (and its helpers tested) in Node.
 */

import { errorParts, jsonOrUndefined } from './json-body.js';

/** Options of {@link registerPasskey}. */
export interface RegisterPasskeyOptions {
  /** The provider's base path. Default `/auth/passkey`. */
  base?: string;
  /** The cookie holding the XSRF token. Default `XSRF-TOKEN`. */
  xsrfCookie?: string;
  /** The request header the XSRF token is sent in. Default `X-XSRF-TOKEN`. */
  xsrfHeader?: string;
  /** Aborts the requests and the browser prompt. */
  signal?: AbortSignal;
}

/** Options of {@link loginWithPasskey}. */
export interface LoginWithPasskeyOptions {
  /** The provider's base path. Default `/auth/passkey`. */
  base?: string;
  /** The audience (site) to log in to, sent as `{ site }` with the options request. */
  site?: string;
  /**
   * Passed to `navigator.credentials.get`; `'conditional'` offers the passkeys in the
   * autofill of an `<input autocomplete="username webauthn">` instead of a modal prompt.
   */
  mediation?: CredentialMediationRequirement;
  /** Aborts the requests and the browser prompt (e.g. a pending conditional request). */
  signal?: AbortSignal;
}

/** The user JSON the provider answers a successful login with. */
export interface PasskeyUser {
  id: string;
  name?: string;
  picture?: string;
  [key: string]: unknown;
}

/**
 * A failed passkey request: `message` is the server's `error`, `code` its `code`, `status` the
 * HTTP status (0 when the failure happened in the browser, e.g. `code: 'unsupported'`).
 * A user cancelling the browser prompt is not a PasskeyError: the browser's
 * `NotAllowedError` DOMException propagates unchanged.
 */
export class PasskeyError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(message: string, code: string, status: number) {
    super(message);
    this.name = 'PasskeyError';
    this.code = code;
    this.status = status;
  }
}

const DEFAULT_BASE = '/auth/passkey';

/**
 * Adds a passkey to the logged-in user's account: asks the server for creation options,
 * lets the browser create the credential, and registers it. Resolves to `{ id }`, the new
 * credential's id.
 */
export async function registerPasskey(opts: RegisterPasskeyOptions = {}): Promise<{ id: string }> {
  const credentials = credentialsContainer();
  const base = trimBase(opts.base);
  const headers: Record<string, string> = {};
  const token = _readCookie(document.cookie, opts.xsrfCookie ?? 'XSRF-TOKEN');
  if (token !== undefined) headers[opts.xsrfHeader ?? 'X-XSRF-TOKEN'] = token;

  const json = await postJSON<PublicKeyCredentialCreationOptionsJSON>(`${base}/register/options`, {}, headers, opts.signal);
  const credential = await credentials.create({ publicKey: _creationOptions(json), signal: opts.signal });
  if (!credential) throw new PasskeyError('the browser created no credential', 'no_credential', 0);
  return postJSON<{ id: string }>(`${base}/register`, _credentialJSON(credential as PublicKeyCredential), headers, opts.signal);
}

/**
 * Logs in with a passkey: asks the server for request options, lets the user pick a passkey,
 * and posts the assertion. Resolves to the user JSON; the server has set the session cookies.
 */
export async function loginWithPasskey<U extends object = PasskeyUser>(opts: LoginWithPasskeyOptions = {}): Promise<U> {
  const credentials = credentialsContainer();
  const base = trimBase(opts.base);
  const body = opts.site !== undefined ? { site: opts.site } : {};

  const json = await postJSON<PublicKeyCredentialRequestOptionsJSON>(`${base}/login/options`, body, {}, opts.signal);
  const request: CredentialRequestOptions = { publicKey: _requestOptions(json), signal: opts.signal };
  if (opts.mediation) request.mediation = opts.mediation;
  const credential = await credentials.get(request);
  if (!credential) throw new PasskeyError('the browser returned no credential', 'no_credential', 0);
  return postJSON<U>(`${base}/login`, _credentialJSON(credential as PublicKeyCredential), {}, opts.signal);
}

// ---------------------------------------------------------------------------------------------
// Browser plumbing

function credentialsContainer(): CredentialsContainer {
  // navigator.credentials is missing in old browsers and outside secure contexts (plain http
  // other than localhost); fail before the server spends a challenge.
  const container = typeof navigator !== 'undefined' ? navigator.credentials : undefined;
  if (!container || typeof PublicKeyCredential === 'undefined')
    throw new PasskeyError('passkeys are not available here (old browser or not a secure context)', 'unsupported', 0);
  return container;
}

function trimBase(base: string | undefined): string {
  return (base ?? DEFAULT_BASE).replace(/\/+$/, '');
}

/** POSTs `body` as JSON and resolves to the JSON answer; a non-2xx answer rejects with a PasskeyError. */
async function postJSON<T>(url: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  const data = jsonOrUndefined(await res.text());
  if (!res.ok) throw _errorFrom(res.status, data);
  if (data === undefined) throw new PasskeyError(`invalid JSON answer from ${url}`, 'invalid_response', res.status);
  return data as T;
}

// ---------------------------------------------------------------------------------------------
// Pure helpers (exported with a leading underscore for the unit tests; not part of the API)

/** The PasskeyError for a non-2xx answer with body `data` (the server's `{ error, code }`). */
export function _errorFrom(status: number, data: unknown): PasskeyError {
  const { message, code } = errorParts(status, data);
  return new PasskeyError(message, code, status);
}

/** The value of cookie `name` in a `document.cookie` string, or undefined. */
export function _readCookie(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

/** base64url (no padding) of the bytes of an ArrayBuffer or a view. */
export function _toBase64url(data: BufferSource): string {
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url string (padding optional) as a fresh ArrayBuffer. Throws on bad input. */
export function _fromBase64url(text: string): ArrayBuffer {
  const b64 = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

// Browsers before the WebAuthn Level 3 JSON methods (Chrome < 129, Safari < 18.4, Firefox < 119 for
// toJSON, and some password-manager extensions that replace navigator.credentials) lack
// PublicKeyCredential.parse*FromJSON / credential.toJSON(). The fallbacks below do the same
// conversion by hand for the fields the server uses: binary fields travel as base64url in JSON
// and as ArrayBuffers in the WebAuthn API. Binary extension inputs (prf, largeBlob) are not
// converted by the fallback.

type Descriptors = PublicKeyCredentialDescriptorJSON[] | undefined;

function descriptors(list: Descriptors): PublicKeyCredentialDescriptor[] | undefined {
  return list?.map((d) => ({ ...d, id: _fromBase64url(d.id) }) as PublicKeyCredentialDescriptor);
}

/** Fallback of `PublicKeyCredential.parseCreationOptionsFromJSON`. */
export function _parseCreationOptions(json: PublicKeyCredentialCreationOptionsJSON): PublicKeyCredentialCreationOptions {
  const options = {
    ...json,
    challenge: _fromBase64url(json.challenge),
    user: { ...json.user, id: _fromBase64url(json.user.id) },
  } as PublicKeyCredentialCreationOptions;
  if (json.excludeCredentials) options.excludeCredentials = descriptors(json.excludeCredentials);
  return options;
}

/** Fallback of `PublicKeyCredential.parseRequestOptionsFromJSON`. */
export function _parseRequestOptions(json: PublicKeyCredentialRequestOptionsJSON): PublicKeyCredentialRequestOptions {
  const options = { ...json, challenge: _fromBase64url(json.challenge) } as PublicKeyCredentialRequestOptions;
  if (json.allowCredentials) options.allowCredentials = descriptors(json.allowCredentials);
  return options;
}

/** ArrayBuffers and views (at any depth of plain objects and arrays) as base64url strings. */
function jsonable(value: unknown): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return _toBase64url(value as BufferSource);
  if (Array.isArray(value)) return value.map(jsonable);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = jsonable(v);
    return out;
  }
  return value;
}

/** Calls `obj[name]()` when it is a method, else returns undefined. */
function maybe<T>(obj: object, name: string): T | undefined {
  const fn = (obj as Record<string, unknown>)[name];
  return typeof fn === 'function' ? (fn.call(obj) as T) : undefined;
}

/**
 * Fallback of `credential.toJSON()`: the RegistrationResponseJSON of a created credential or
 * the AuthenticationResponseJSON of an assertion (told apart by `response.attestationObject`).
 */
export function _credentialToJSON(credential: PublicKeyCredential): Record<string, unknown> {
  const r = credential.response as AuthenticatorResponse & Partial<AuthenticatorAttestationResponse & AuthenticatorAssertionResponse>;
  const response: Record<string, unknown> = { clientDataJSON: _toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response['attestationObject'] = _toBase64url(r.attestationObject);
    const authenticatorData = maybe<ArrayBuffer>(r, 'getAuthenticatorData');
    if (authenticatorData) response['authenticatorData'] = _toBase64url(authenticatorData);
    const publicKey = maybe<ArrayBuffer | null>(r, 'getPublicKey');
    if (publicKey) response['publicKey'] = _toBase64url(publicKey);
    const publicKeyAlgorithm = maybe<number>(r, 'getPublicKeyAlgorithm');
    if (publicKeyAlgorithm !== undefined) response['publicKeyAlgorithm'] = publicKeyAlgorithm;
    response['transports'] = maybe<string[]>(r, 'getTransports') ?? [];
  } else {
    if (r.authenticatorData) response['authenticatorData'] = _toBase64url(r.authenticatorData);
    if (r.signature) response['signature'] = _toBase64url(r.signature);
    if (r.userHandle) response['userHandle'] = _toBase64url(r.userHandle);
  }
  const json: Record<string, unknown> = {
    id: credential.id,
    rawId: _toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: jsonable(maybe(credential, 'getClientExtensionResults') ?? {}),
  };
  if (credential.authenticatorAttachment) json['authenticatorAttachment'] = credential.authenticatorAttachment;
  return json;
}

/** The creation options for `navigator.credentials.create`: the browser's own parser, else the fallback. */
export function _creationOptions(json: PublicKeyCredentialCreationOptionsJSON): PublicKeyCredentialCreationOptions {
  const native = PublicKeyCredential as Partial<typeof PublicKeyCredential>;
  return typeof native.parseCreationOptionsFromJSON === 'function'
    ? native.parseCreationOptionsFromJSON(json)
    : _parseCreationOptions(json);
}

/** The request options for `navigator.credentials.get`: the browser's own parser, else the fallback. */
export function _requestOptions(json: PublicKeyCredentialRequestOptionsJSON): PublicKeyCredentialRequestOptions {
  const native = PublicKeyCredential as Partial<typeof PublicKeyCredential>;
  return typeof native.parseRequestOptionsFromJSON === 'function'
    ? native.parseRequestOptionsFromJSON(json)
    : _parseRequestOptions(json);
}

/** A created credential or an assertion as the JSON the server reads: `toJSON()`, else the fallback. */
export function _credentialJSON(credential: PublicKeyCredential): unknown {
  return typeof credential.toJSON === 'function' ? credential.toJSON() : _credentialToJSON(credential);
}
