/**
 * WebAuthn's JSON forms and the browser's binary ones: the creation and request options the server sends
 * (binary fields as base64url) turned into what `navigator.credentials` takes, and a created credential or
 * an assertion turned back into the JSON the server reads. The browser's own methods where it has them;
 * the fallbacks below where it does not. Pure functions: nothing here touches `window` or `navigator`
 * until one of the last three is called.
 */

/** base64url (no padding) of the bytes of an ArrayBuffer or a view. */
export function toBase64url(data: BufferSource): string {
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of a base64url string (padding optional) as a fresh ArrayBuffer. Throws on bad input. */
export function fromBase64url(text: string): ArrayBuffer {
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
  return list?.map((d) => ({ ...d, id: fromBase64url(d.id) }) as PublicKeyCredentialDescriptor);
}

/** Fallback of `PublicKeyCredential.parseCreationOptionsFromJSON`. */
export function parseCreationOptions(json: PublicKeyCredentialCreationOptionsJSON): PublicKeyCredentialCreationOptions {
  const options = {
    ...json,
    challenge: fromBase64url(json.challenge),
    user: { ...json.user, id: fromBase64url(json.user.id) },
  } as PublicKeyCredentialCreationOptions;
  if (json.excludeCredentials) options.excludeCredentials = descriptors(json.excludeCredentials);
  return options;
}

/** Fallback of `PublicKeyCredential.parseRequestOptionsFromJSON`. */
export function parseRequestOptions(json: PublicKeyCredentialRequestOptionsJSON): PublicKeyCredentialRequestOptions {
  const options = { ...json, challenge: fromBase64url(json.challenge) } as PublicKeyCredentialRequestOptions;
  if (json.allowCredentials) options.allowCredentials = descriptors(json.allowCredentials);
  return options;
}

/** ArrayBuffers and views (at any depth of plain objects and arrays) as base64url strings. */
function jsonable(value: unknown): unknown {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return toBase64url(value as BufferSource);
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
export function credentialToJSON(credential: PublicKeyCredential): Record<string, unknown> {
  const r = credential.response as AuthenticatorResponse &
    Partial<AuthenticatorAttestationResponse & AuthenticatorAssertionResponse>;
  const response: Record<string, unknown> = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response['attestationObject'] = toBase64url(r.attestationObject);
    const authenticatorData = maybe<ArrayBuffer>(r, 'getAuthenticatorData');
    if (authenticatorData) response['authenticatorData'] = toBase64url(authenticatorData);
    const publicKey = maybe<ArrayBuffer | null>(r, 'getPublicKey');
    if (publicKey) response['publicKey'] = toBase64url(publicKey);
    const publicKeyAlgorithm = maybe<number>(r, 'getPublicKeyAlgorithm');
    if (publicKeyAlgorithm !== undefined) response['publicKeyAlgorithm'] = publicKeyAlgorithm;
    response['transports'] = maybe<string[]>(r, 'getTransports') ?? [];
  } else {
    if (r.authenticatorData) response['authenticatorData'] = toBase64url(r.authenticatorData);
    if (r.signature) response['signature'] = toBase64url(r.signature);
    if (r.userHandle) response['userHandle'] = toBase64url(r.userHandle);
  }
  const json: Record<string, unknown> = {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response,
    clientExtensionResults: jsonable(maybe(credential, 'getClientExtensionResults') ?? {}),
  };
  if (credential.authenticatorAttachment) json['authenticatorAttachment'] = credential.authenticatorAttachment;
  return json;
}

/** The creation options for `navigator.credentials.create`: the browser's own parser, else the fallback. */
export function creationOptions(json: PublicKeyCredentialCreationOptionsJSON): PublicKeyCredentialCreationOptions {
  const native = PublicKeyCredential as Partial<typeof PublicKeyCredential>;
  return typeof native.parseCreationOptionsFromJSON === 'function'
    ? native.parseCreationOptionsFromJSON(json)
    : parseCreationOptions(json);
}

/** The request options for `navigator.credentials.get`: the browser's own parser, else the fallback. */
export function requestOptions(json: PublicKeyCredentialRequestOptionsJSON): PublicKeyCredentialRequestOptions {
  const native = PublicKeyCredential as Partial<typeof PublicKeyCredential>;
  return typeof native.parseRequestOptionsFromJSON === 'function'
    ? native.parseRequestOptionsFromJSON(json)
    : parseRequestOptions(json);
}

/** A created credential or an assertion as the JSON the server reads: `toJSON()`, else the fallback. */
export function credentialJSON(credential: PublicKeyCredential): unknown {
  return typeof credential.toJSON === 'function' ? credential.toJSON() : credentialToJSON(credential);
}
