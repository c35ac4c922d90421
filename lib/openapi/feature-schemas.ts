/**
 * The component schemas of what the passkey kind answers beyond the core routes: its WebAuthn JSON. Named
 * components rather than inline schemas so that the kind's `routeDocs`, the `/mfa` paths (a passkey as a
 * second factor) and `authkoa/client`'s generated types all refer to one definition. The second factor's
 * own bodies are its feature's (lib/mfa/openapi.ts).
 *
 * The WebAuthn options are the JSON forms of the specification's dictionaries
 * (PublicKeyCredentialCreationOptionsJSON and its request counterpart, as @simplewebauthn/server writes
 * them and a browser's parse…FromJSON reads them): their members are the specification's, so the objects
 * are closed to others. Plain JSON: describing them loads no WebAuthn package.
 */
type Schema = Record<string, unknown>;

const string = { type: 'string' };
const base64url = { type: 'string', pattern: '^[A-Za-z0-9_-]*$' };
const transports = { type: 'array', items: string };
const userVerification = { enum: ['required', 'preferred', 'discouraged'] };
const descriptor = {
  type: 'object',
  required: ['id', 'type'],
  additionalProperties: false,
  properties: { id: base64url, type: { const: 'public-key' }, transports },
};
export const PASSKEY_SCHEMAS: Record<string, Schema> = {
  PasskeyCreationOptions: {
    type: 'object',
    description: 'What `navigator.credentials.create()` takes, as JSON: a new passkey for the session user.',
    required: ['challenge', 'rp', 'user', 'pubKeyCredParams'],
    additionalProperties: false,
    properties: {
      challenge: base64url,
      rp: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: string, id: string } },
      user: {
        type: 'object',
        required: ['id', 'name', 'displayName'],
        additionalProperties: false,
        properties: { id: base64url, name: string, displayName: string },
      },
      pubKeyCredParams: {
        type: 'array',
        items: {
          type: 'object',
          required: ['alg', 'type'],
          additionalProperties: false,
          properties: { alg: { type: 'integer' }, type: { const: 'public-key' } },
        },
      },
      timeout: { type: 'integer' },
      excludeCredentials: { type: 'array', items: descriptor },
      authenticatorSelection: {
        type: 'object',
        additionalProperties: false,
        properties: {
          authenticatorAttachment: string,
          residentKey: { enum: ['required', 'preferred', 'discouraged'] },
          requireResidentKey: { type: 'boolean' },
          userVerification,
        },
      },
      hints: { type: 'array', items: string },
      attestation: { enum: ['none', 'indirect', 'direct', 'enterprise'] },
      attestationFormats: { type: 'array', items: string },
      extensions: { type: 'object' },
    },
  },
  PasskeyRequestOptions: {
    type: 'object',
    description:
      'What `navigator.credentials.get()` takes, as JSON: a challenge for a passkey of the site (a login) or of ' +
      'one user (a second step).',
    required: ['challenge'],
    additionalProperties: false,
    properties: {
      challenge: base64url,
      timeout: { type: 'integer' },
      rpId: string,
      allowCredentials: { type: 'array', items: descriptor },
      userVerification,
      hints: { type: 'array', items: string },
      extensions: { type: 'object' },
    },
  },
  PasskeyCredential: {
    type: 'object',
    description:
      "A WebAuthn credential's JSON (a browser's `PublicKeyCredential.toJSON()`): what register, login and the " +
      'second step read.',
    required: ['id', 'rawId', 'type', 'response'],
    properties: {
      id: base64url,
      rawId: base64url,
      type: { const: 'public-key' },
      response: { type: 'object' },
      clientExtensionResults: { type: 'object' },
      authenticatorAttachment: string,
    },
  },
  Passkey: {
    type: 'object',
    description: "One of the user's passkeys as the list shows it: no key, no counter.",
    required: ['id', 'device', 'createdAt', 'lastUsedAt', 'deviceType', 'backedUp', 'transports'],
    additionalProperties: false,
    properties: {
      id: base64url,
      device: {
        type: 'string',
        description: 'Where it was added, from that request\'s User-Agent ("Chrome on macOS"); else "Unknown device".',
      },
      createdAt: { type: 'string', format: 'date-time' },
      lastUsedAt: { oneOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
      deviceType: { enum: ['singleDevice', 'multiDevice'] },
      backedUp: { type: 'boolean' },
      transports,
    },
  },
};
